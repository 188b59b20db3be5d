"""Breaks: NDS-EXT-3
Profile: core
Bug: after externalizing, ``external_data`` is rebuilt sorted by tag ("for a deterministic
order"), so new shards' tags are mixed with the tags the store had instead of coming after them.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
        super().externalize_pte_data(max_data_bytes, tag_prefix)
        self.external_data = dict(sorted(self.external_data.items()))


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("e", b"external", external_tag="zzz")
    store.add_named_data("a", b"inline")
    store.externalize_pte_data(100, "aaa")  # type: ignore[attr-defined]
    tags = list(store.get_named_data_store_output().external_data)
    if tags[0] != "zzz":
        return f"the tags after externalizing are {tags}: the new shard is not after 'zzz'"
    return None
