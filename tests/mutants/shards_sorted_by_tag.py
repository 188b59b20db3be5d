"""Breaks: NDS-EXT-3, NDS-EXT-4

``externalize_pte_data`` that adds its shards to ``external_data`` sorted by tag (to be
"deterministic") instead of in packing order: each shard holds the right keys, but the shards'
order, which the serializer lays files out by, follows their hashes.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import shard_tag, shards_problem


class NamedDataStore(Store):
    def externalize_pte_data(self, max_data_bytes: Any, tag_prefix: Any) -> None:
        before = list(self.external_data)
        super().externalize_pte_data(max_data_bytes, tag_prefix)
        new = sorted(tag for tag in self.external_data if tag not in before)
        self.external_data = {tag: self.external_data[tag] for tag in [*before, *new]}


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    # two keys, a shard each, whose tags sort the other way round
    first, second = next(
        (a, b)
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
        if shard_tag([a]) > shard_tag([b])
    )
    return shards_problem(impl, [first, second], [8, 8], 8)
