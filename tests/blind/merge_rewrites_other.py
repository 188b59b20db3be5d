"""Breaks: NDS-MERGE-2
Profile: core
Bug: after a merge, ``other``'s buffers are rewritten to the target's equal objects ("so both
share one object"), the defect the review found: ``other``'s buffer list is changed by a merge.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def merge_named_data_store(self, other: reference.NamedDataStoreOutput) -> None:
        super().merge_named_data_store(other)
        buffers = other.buffers
        maps = [other.pte_data, *other.external_data.values()]
        for entries in maps:
            for key, entry in entries.items():
                mine = self.buffers[self.key_to_buffer_idx[key]]
                if buffers[entry.buffer_index] is not mine:
                    buffers[entry.buffer_index] = mine


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    ours, theirs = bytes(bytearray(b"shared weights")), bytes(bytearray(b"shared weights"))
    target, source = impl.NamedDataStore(), impl.NamedDataStore()
    target.add_named_data("a", ours)
    source.add_named_data("b", theirs)
    out = source.get_named_data_store_output()
    target.merge_named_data_store(out)
    if out.buffers[0] is not theirs:
        return "merging an output replaced a buffer of that output with the target's object"
    return None
