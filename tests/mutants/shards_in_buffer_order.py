"""Breaks: NDS-EXT-3

Shard packing in the order the buffers were added instead of by sorted key lists: stores with the
same entries added in another order give other shards.
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    @staticmethod
    def _group_order(groups: dict[int, dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
        return sorted(groups.items())


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
