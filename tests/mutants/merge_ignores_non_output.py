"""Breaks: NDS-MERGE-1

``merge_named_data_store`` that takes an ``other`` without an output's attributes (``None``, a
``dict``) as an empty output: the caller's mistake is swallowed and nothing is merged.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import refused


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        if not all(hasattr(other, a) for a in ("buffers", "pte_data", "external_data")):
            return
        super().merge_named_data_store(other)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    return refused(
        lambda: store.merge_named_data_store(None), (AttributeError, TypeError), "merging None"
    )
