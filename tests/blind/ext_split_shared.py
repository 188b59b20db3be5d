"""Breaks: NDS-EXT-3
Profile: core
Bug: externalizing packs inline keys one by one in key order, each with its buffer's size, instead
of by buffer, so keys that share a buffer count its size again and can land in separate shards.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


class NamedDataStore(named_data.NamedDataStore):
    @staticmethod
    def _group_order(groups):
        single = [
            (index, {key: entry})
            for index, entries in groups.items()
            for key, entry in entries.items()
        ]
        return sorted(single, key=lambda item: list(item[1]))


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"1234")
    store.add_named_data("b", b"1234")  # shares a's buffer
    store.add_named_data("c", b"5678")
    store.externalize_pte_data(8, "shard")  # 4 + 4 bytes: one shard
    shards = store.get_named_data_store_output().external_data
    if len(shards) != 1:
        keys = [sorted(shard) for shard in shards.values()]
        return f"8 bytes of buffers with a cap of 8 made {len(shards)} shards: {keys}"
    return None
