"""Breaks: NDS-ADD-1

``add_named_data`` that takes exactly ``bytes`` (``type(data) is bytes``): a subclass of
``bytes``, which is ``bytes`` to the spec, is refused with a ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def add_named_data(self, key: Any, data: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(data, bytes) and type(data) is not bytes:
            raise TypeError(f"Unsupported named data type: {type(data).__name__}")
        super().add_named_data(key, data, *args, **kwargs)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
