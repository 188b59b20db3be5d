"""Breaks: NDS-MERGE-7

A merge whose check of a ``buffer_index`` forgets that ``bool`` is an ``int``: an entry with index
``True`` or ``False`` is merged as buffer 1 or 0 instead of being rejected as malformed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import reference

from . import implementation
from ._base import Store


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
