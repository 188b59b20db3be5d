"""Breaks: NDS-EXT-1

``externalize_pte_data`` whose check of ``max_data_bytes`` forgets that ``bool`` is an ``int``:
``True`` is a cap of one byte, which only a store of blobs of at most one byte passes.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import refused


class NamedDataStore(Store):
    def externalize_pte_data(self, max_data_bytes: Any, tag_prefix: Any) -> None:
        if isinstance(max_data_bytes, bool):
            max_data_bytes = int(max_data_bytes)
        super().externalize_pte_data(max_data_bytes, tag_prefix)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"1")
    return refused(
        lambda: store.externalize_pte_data(True, "shard"), ValueError, "a shard cap of True"
    )
