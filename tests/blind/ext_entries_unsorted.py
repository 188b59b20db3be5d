"""Breaks: NDS-EXT-4
Profile: core
Bug: a shard's entries are kept in the order the keys were grouped (the order they were added,
within a shared buffer), not in sorted key order; only its tag is computed from the sorted keys.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _install(self, tag: str, shard: dict[str, DataEntry], keys: list[str], *rest: Any) -> None:
        super()._install(tag, shard, list(shard), *rest)  # as grouped, not sorted


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("b", b"shared")
    store.add_named_data("a", b"shared")
    store.externalize_pte_data(100, "p")  # type: ignore[attr-defined]
    (shard,) = store.get_named_data_store_output().external_data.values()
    if list(shard) != ["a", "b"]:
        return f"the shard's entries are in the order {list(shard)}, not sorted"
    return None
