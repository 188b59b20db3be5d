"""Breaks: NDS-DEDUP-5, NDS-DEDUP-6
Profile: core
Bug: to keep memory low, when a file-backed blob equals a stored ``bytes`` buffer the store swaps
the buffer for the file-backed object, instead of keeping the object added first.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class NamedDataStore(reference.NamedDataStore):
    def _add(self, key: str, data: object, alignment: int, tag: str | None, layout: object) -> None:
        new = key not in self._tags
        super()._add(key, data, alignment, tag, layout)
        if new and isinstance(data, reference.FileBackedData):
            index = self._entries(tag)[key].buffer_index
            if isinstance(self.buffers[index], bytes):
                self.buffers[index] = data  # the file instead of the bytes in memory


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        first = b"the same weights"
        store = impl.NamedDataStore()
        store.add_named_data("bytes", first)
        store.add_named_data("file", impl.FileBackedData(make_file(tmp + "/w", first)))
        buffers = store.get_named_data_store_output().buffers
        if len(buffers) != 1 or buffers[0] is not first:
            return f"the shared buffer is {buffers!r}, not the bytes object added first"
        return None
