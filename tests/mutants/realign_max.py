"""Breaks: NDS-ALIGN-2

A re-added key with another alignment gets the larger of the two, not their lcm: the same for
powers of two, wrong for 4 and 6 (6, where 12 satisfies both).
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    @staticmethod
    def _combined_alignment(old: int, new: int) -> int:
        return max(old, new)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store: Any = impl.NamedDataStore()
    store.add_named_data("added", b"weights", alignment=4)
    store.add_named_data("added", b"weights", alignment=6)
    store.add_named_data("merged", b"bias", alignment=8)
    other: Any = impl.NamedDataStore()
    other.add_named_data("merged", b"bias", alignment=12)
    store.merge_named_data_store(other.get_named_data_store_output())
    entries = store.get_named_data_store_output().pte_data
    got = {key: entries[key].alignment for key in ("added", "merged")}
    if got != {"added": 12, "merged": 24}:
        return f"keys aligned 4 then 6 (added) and 8 then 12 (merged) have alignments {got}"
    return None
