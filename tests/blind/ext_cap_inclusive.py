"""Breaks: NDS-EXT-3
Profile: core
Bug: the greedy packing starts a new shard when a group would bring the shard *to* the cap
(``>=``), not past it: a shard that would be exactly ``max_data_bytes`` is split.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    @staticmethod
    def _starts_shard(current_bytes: int, size: int, cap: int) -> bool:
        return current_bytes + size >= cap


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"x" * 6)
    store.add_named_data("b", b"y" * 4)
    store.externalize_pte_data(10, "shard")
    shards = store.get_named_data_store_output().external_data
    if len(shards) != 1:
        return f"blobs of 6 and 4 bytes under a cap of 10 went to {len(shards)} shards"
    return None
