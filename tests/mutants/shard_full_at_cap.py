"""Breaks: NDS-EXT-3

Shard packing that starts a new shard when a group would bring the current one *to* the cap
(``>=``), not past it: a shard that fits the cap exactly is split.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import shards_problem


class NamedDataStore(Store):
    @staticmethod
    def _starts_shard(current_bytes: int, size: int, cap: int) -> bool:
        return current_bytes + size >= cap


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return shards_problem(impl, ["a", "b"], [8, 8], 16)  # one shard, exactly full
