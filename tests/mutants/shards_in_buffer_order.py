"""Breaks: NDS-EXT-3

Shard packing in the order the buffers were added instead of by sorted key lists: stores with the
same entries added in another order give other shards.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import shards_problem


class NamedDataStore(Store):
    @staticmethod
    def _group_order(groups: dict[int, dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
        return sorted(groups.items())


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return shards_problem(impl, ["b", "a"], [8, 8], 8)  # a shard each, "a"'s first
