"""Breaks: NDS-EXT-2, NDS-KEY-1

``externalize_pte_data`` that copies the inline entries to external shards but leaves them in
``pte_data`` too: each such key then has two entries.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
        inline = dict(self.pte_data)
        super().externalize_pte_data(max_data_bytes, tag_prefix)
        self.pte_data = inline


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights")
    store.externalize_pte_data(1 << 20, "shard")
    inline = sorted(store.get_named_data_store_output().pte_data)
    return f"after externalize_pte_data, pte_data still holds {inline}" if inline else None
