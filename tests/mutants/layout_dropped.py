"""Breaks: NDS-ADD-7

``add_named_data`` that drops the ``tensor_layout`` it is given (entries get None).
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import kept_layout


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        super()._add(key, data, alignment, tag, None)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights", 1, None, "layout")
    return kept_layout(store, "added with")
