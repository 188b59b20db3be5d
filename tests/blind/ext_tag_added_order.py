"""Breaks: NDS-EXT-4, NDS-EXT-3, NDS-EXT-9
Profile: core
Bug: a shard's tag hashes its keys in the order the shard collected them (within a shared buffer,
the order they were added) rather than sorted, so the tag depends on the order of adds.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


class NamedDataStore(named_data.NamedDataStore):
    def _install(self, tag, shard, keys, external, tags):
        prefix = tag.rpartition("_")[0]
        super()._install(self._shard_tag(prefix, list(shard)), shard, keys, external, tags)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    import hashlib

    store = impl.NamedDataStore()
    store.add_named_data("b", b"same")
    store.add_named_data("a", b"same")
    store.externalize_pte_data(100, "p")
    expected = "p_" + hashlib.sha256(b"a\0b").hexdigest()
    tags = list(store.get_named_data_store_output().external_data)
    if tags != [expected]:
        return f"the shard of keys ['a', 'b'] is tagged {tags}, not [{expected!r}]"
    return None
