"""Breaks: NDS-MERGE-7

A merge whose check of a ``buffer_index`` forgets that ``bool`` is an ``int``: an entry with index
``True`` or ``False`` is merged as buffer 1 or 0 instead of being rejected as malformed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import refused


def _as_int(entries: Any) -> Any:
    if not isinstance(entries, dict):
        return entries
    return {
        key: dataclasses.replace(entry, buffer_index=int(entry.buffer_index))
        if isinstance(entry, reference.DataEntry) and isinstance(entry.buffer_index, bool)
        else entry
        for key, entry in entries.items()
    }


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        external = other.external_data
        if isinstance(external, dict):
            external = {tag: _as_int(entries) for tag, entries in external.items()}
        super().merge_named_data_store(
            reference.NamedDataStoreOutput(other.buffers, _as_int(other.pte_data), external)
        )


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    other = impl.NamedDataStoreOutput([b"0", b"1"], {"w": impl.DataEntry(True, 1, None)}, {})
    return refused(
        lambda: store.merge_named_data_store(other), ValueError, "a buffer_index True", "'w'"
    )
