"""Breaks: NDS-ADD-3, NDS-ADD-5

``add_named_data`` that stores the alignment as given: zero, negative, ``None``, ``True`` or
``1.5`` are accepted.
"""

from __future__ import annotations

from typing import Any

from reference.named_data import _checked

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def add_named_data(
        self,
        key: Any,
        data: Any,
        alignment: Any = 1,
        external_tag: Any = None,
        tensor_layout: Any = None,
    ) -> None:
        key, data, _, tag = _checked(key, data, 1, external_tag)
        self._add(key, data, alignment, tag, tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
