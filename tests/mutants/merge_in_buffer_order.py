"""Breaks: NDS-MERGE-1

``merge_named_data_store`` that replays each map of ``other`` in the order of its entries'
buffers, not in the map's own order: the same for an output a store made, another order for a
hand-made one whose maps list their keys otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._base import Store


def _by_buffer(entries: Mapping[Any, Any]) -> dict[Any, Any]:
    return dict(sorted(entries.items(), key=lambda item: item[1].buffer_index))


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        try:
            reordered = reference.NamedDataStoreOutput(
                other.buffers,
                _by_buffer(other.pte_data),
                {tag: _by_buffer(entries) for tag, entries in other.external_data.items()},
            )
        except Exception:  # a malformed output: merged as it is, to fail as the reference does
            reordered = other
        super().merge_named_data_store(reordered)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store, entry = impl.NamedDataStore(), impl.DataEntry
    backwards = {"b": entry(1, 1, None), "a": entry(0, 1, None)}  # the map's order: b, then a
    store.merge_named_data_store(impl.NamedDataStoreOutput([b"A", b"B"], backwards, {}))
    buffers = list(store.get_named_data_store_output().buffers)
    if buffers != [b"B", b"A"]:
        return f"merging 'b' (B), then 'a' (A) gave the buffers {buffers}: not in the map's order"
    return None
