"""Breaks: NDS-EXT-6

``externalize_pte_data`` that moves each shard into the store as soon as it is tagged: a tag
collision on a later shard raises with the earlier shards already moved out of ``pte_data``.
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _install(
        self,
        tag: str,
        shard: dict[str, Any],
        keys: list[str],
        external: dict[str, dict[str, Any]],
        tags: dict[str, str | None],
    ) -> None:
        super()._install(tag, shard, keys, external, tags)
        self.external_data[tag] = external[tag]
        for key in keys:
            self.pte_data.pop(key, None)
            self._tags[key] = tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
