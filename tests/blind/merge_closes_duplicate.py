"""Breaks: NDS-MERGE-3
Profile: core
Bug: a merge closes ``other``'s file-backed buffers that turned out to duplicate a buffer the
target has ("the duplicate is not needed any more"), deleting ``other``'s owned file.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class NamedDataStore(reference.NamedDataStore):
    def merge_named_data_store(self, other: reference.NamedDataStoreOutput) -> None:
        super().merge_named_data_store(other)
        kept = {id(b) for b in self.buffers}
        for buffer in other.buffers:
            if isinstance(buffer, reference.FileBackedData) and id(buffer) not in kept:
                buffer.close()  # a duplicate: its file is released


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData.move_from(make_file(os.path.join(tmp, "w"), b"weights"))
        try:
            target, source = impl.NamedDataStore(), impl.NamedDataStore()
            target.add_named_data("a", b"weights")
            source.add_named_data("b", blob)
            target.merge_named_data_store(source.get_named_data_store_output())
            if not os.path.exists(impl.path_of(blob)):
                return "a merge deleted the file of a duplicate buffer of the merged output"
            if blob.to_bytes() != b"weights":
                return "a merged output's file is no longer readable"
        except ValueError as exc:
            return f"a merged output's file-backed buffer was closed: {exc}"
        finally:
            blob.close()
    return None
