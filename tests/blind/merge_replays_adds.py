"""Breaks: NDS-MERGE-6
Profile: strict
Bug: a merge replays ``add_named_data`` entry by entry, with no staging: a conflict half-way
leaves the entries before it merged.
"""

from __future__ import annotations

import contextlib

import reference
from conformance.api import Implementation
from reference.named_data import NamedDataStoreOutput

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        maps = [(None, other.pte_data), *other.external_data.items()]
        for tag, entries in maps:
            for key, entry in entries.items():
                self.add_named_data(
                    key,
                    other.buffers[entry.buffer_index],
                    entry.alignment,
                    tag,
                    entry.tensor_layout,
                )


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("b", b"mine")
    other = impl.NamedDataStoreOutput(
        [b"new", b"theirs"],
        {"a": impl.DataEntry(0, 1, None), "b": impl.DataEntry(1, 1, None)},
        {},
    )
    with contextlib.suppress(ValueError):
        store.merge_named_data_store(other)
    keys = sorted(store.get_named_data_store_output().pte_data)
    if keys != ["b"]:
        return f"a merge that failed at key 'b' left the keys {keys}"
    return None
