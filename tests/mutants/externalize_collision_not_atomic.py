"""Breaks: NDS-EXT-6

``externalize_pte_data`` that moves each shard into the store as soon as it is tagged: a tag
collision on a later shard raises with the earlier shards already moved out of ``pte_data``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import raised


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


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"aa")
    store.add_named_data("b", b"bb")
    taken = f"shard_{hashlib.sha256(b'b').hexdigest()}"  # the tag of the shard ["b"]: NDS-EXT-4
    store.add_named_data("z", b"zz", 1, taken)
    error = raised(lambda: store.externalize_pte_data(2, "shard"))  # shards ["a"], then ["b"]
    inline = sorted(store.get_named_data_store_output().pte_data)
    if not isinstance(error, ValueError) or inline != ["a", "b"]:
        return f"a tag collision at the second shard gave {error!r} and left inline only {inline}"
    return None
