"""Breaks: NDS-MERGE-2, NDS-MERGE-3, NDS-MERGE-4

Review defect 2: after merging, the first version pointed ``other``'s buffers at the target's equal
objects and closed ``other``'s duplicate files (deleting those it owned), so ``other`` changed
under its owner and merging the same output a second time read deleted files.
"""

from __future__ import annotations

from typing import Any

import reference

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
