"""Breaks: NDS-EXT-4

A shard's entries group by group, in packing order, each group's keys sorted, instead of in sorted
key order: a key that shares a buffer with a smaller one comes before keys that sort between them.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    @staticmethod
    def _shard_entries(shard: dict[str, DataEntry], keys: list[str]) -> dict[str, DataEntry]:
        groups: dict[int, list[str]] = {}
        for key in shard:  # packing order
            groups.setdefault(shard[key].buffer_index, []).append(key)
        return {key: shard[key] for group in groups.values() for key in sorted(group)}


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    for key, data in (("a", b"shared"), ("b", b"its own"), ("c", b"shared")):
        store.add_named_data(key, data)
    store.externalize_pte_data(1 << 20, "shard")
    (entries,) = store.get_named_data_store_output().external_data.values()
    if list(entries) != ["a", "b", "c"]:
        return f"the one shard lists its entries as {list(entries)}, not in sorted key order"
    return None
