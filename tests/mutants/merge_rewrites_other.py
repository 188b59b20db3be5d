"""Breaks: NDS-MERGE-2, NDS-MERGE-3, NDS-MERGE-4

Review defect 2: after merging, the first version pointed ``other``'s buffers at the target's equal
objects and closed ``other``'s duplicate files (deleting those it owned), so ``other`` changed
under its owner and merging the same output a second time read deleted files.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        super().merge_named_data_store(other)
        for tag, entries in [(None, other.pte_data), *other.external_data.items()]:
            for key, entry in entries.items():
                mine = self.pte_data if tag is None else self.external_data[tag]
                kept = self.buffers[mine[key].buffer_index]
                theirs = other.buffers[entry.buffer_index]
                if theirs is not kept:
                    if isinstance(theirs, reference.FileBackedData):
                        theirs.close()
                    other.buffers[entry.buffer_index] = kept


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", bytes(bytearray(b"weights")))
    theirs = bytes(bytearray(b"weights"))  # equal bytes, another object
    other = impl.NamedDataStoreOutput([theirs], {"w": impl.DataEntry(0, 1, None)}, {})
    store.merge_named_data_store(other)
    return None if other.buffers[0] is theirs else "a merge changed the other output's buffers"
