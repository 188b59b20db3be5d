"""Breaks: NDS-EXT-3, NDS-EXT-4

``externalize_pte_data`` that adds its shards to ``external_data`` sorted by tag (to be
"deterministic") instead of in packing order: each shard holds the right keys, but the shards'
order, which the serializer lays files out by, follows their hashes.
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def externalize_pte_data(self, max_data_bytes: Any, tag_prefix: Any) -> None:
        before = list(self.external_data)
        super().externalize_pte_data(max_data_bytes, tag_prefix)
        new = sorted(tag for tag in self.external_data if tag not in before)
        self.external_data = {tag: self.external_data[tag] for tag in [*before, *new]}


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
