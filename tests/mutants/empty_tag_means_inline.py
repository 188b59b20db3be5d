"""Breaks: NDS-ADD-6

``add_named_data`` that reads a falsy ``external_tag`` as "no tag": ``""`` puts the entry inline in
the PTE instead of raising ``ValueError``.
"""

from __future__ import annotations

from typing import Any

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
        super().add_named_data(key, data, alignment, external_tag or None, tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
