"""Breaks: NDS-EXT-4
Profile: core
Bug: a shard's entries keep the order of the packed groups (each group's keys as added) instead of
sorted key order; the maps compare equal as dicts, only their order differs.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry, _Maps

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _install(
        self,
        tag: str,
        shard: dict[str, DataEntry],
        keys: list[str],
        external: _Maps,
        tags: dict[str, str | None],
    ) -> None:
        if external.get(tag, shard) != shard:
            raise ValueError(f"external data tag collision for {tag}")
        external[tag] = dict(shard)  # in packing order
        tags.update(dict.fromkeys(keys, tag))


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


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
