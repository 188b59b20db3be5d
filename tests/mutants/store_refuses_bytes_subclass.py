"""Breaks: NDS-ADD-1

``add_named_data`` that takes exactly ``bytes`` (``type(data) is bytes``): a subclass of
``bytes``, which is ``bytes`` to the spec, is refused with a ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import raised


class NamedDataStore(Store):
    def add_named_data(self, key: Any, data: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(data, bytes) and type(data) is not bytes:
            raise TypeError(f"Unsupported named data type: {type(data).__name__}")
        super().add_named_data(key, data, *args, **kwargs)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class _Bytes(bytes):
    pass


def scenario(impl: Implementation) -> str | None:
    store: Any = impl.NamedDataStore()
    error = raised(lambda: store.add_named_data("k", _Bytes(b"weights")))
    if error is not None:
        return f"add_named_data of a subclass of bytes raised {error!r}"
    return None
