"""The reference with a planted bug: merge rewrites ``other`` (the defect the review found).

After merging, every buffer of ``other`` that the target already held as another object is
replaced in ``other`` by the target's object, and a file-backed one is closed (its file deleted),
so a second merge of the same output fails. The state machine must catch it (NDS-MERGE-2, -3).
"""

from __future__ import annotations

from reference import Cord, DataEntry, FileBackedData, NamedDataStoreOutput
from reference import NamedDataStore as _Reference

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]


def _contents(buffer: bytes | FileBackedData) -> bytes:
    return buffer if isinstance(buffer, bytes) else buffer.to_bytes()


class NamedDataStore(_Reference):
    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        super().merge_named_data_store(other)
        mine = {_contents(buffer): buffer for buffer in self.buffers}
        for index, buffer in enumerate(other.buffers):
            kept = mine.get(_contents(buffer))
            if kept is not None and kept is not buffer:
                other.buffers[index] = kept  # BUG: other is mutated
                if isinstance(buffer, FileBackedData):
                    buffer.close()  # BUG: other's duplicate file is deleted
