"""Breaks: NDS-EXT-4
Profile: core
Bug: a shard's entries keep the order of the packed groups (each group's keys as added) instead of
sorted key order; the maps compare equal as dicts, only their order differs.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _install(self, tag: str, shard: dict[str, DataEntry], keys: list[str], *rest: Any) -> None:
        super()._install(tag, shard, list(shard), *rest)  # in packing order, not sorted


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"shared")
    store.add_named_data("c", b"shared")
    store.add_named_data("b", b"other")
    store.externalize_pte_data(1 << 20, "shard")
    (entries,) = store.get_named_data_store_output().external_data.values()
    if list(entries) != ["a", "b", "c"]:
        return f"a shard's entries are in the order {list(entries)}, not sorted"
    return None
