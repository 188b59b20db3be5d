"""The reference with a planted bug: a duplicate blob replaces the stored object.

Equal contents still share one buffer, but the buffer becomes the object added last instead of
the first one; the state machine must catch it (NDS-DEDUP-5).
"""

from __future__ import annotations

from reference import Cord, DataEntry, FileBackedData, NamedDataStoreOutput
from reference import NamedDataStore as _Reference

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]


class NamedDataStore(_Reference):
    def _has(self, key: str) -> bool:
        return key in self.pte_data or any(key in e for e in self.external_data.values())

    def _add(
        self,
        key: str,
        data: bytes | FileBackedData,
        alignment: int,
        tag: str | None,
        layout: object,
    ) -> None:
        new = not self._has(key)
        super()._add(key, data, alignment, tag, layout)
        if new:
            entries = self.pte_data if tag is None else self.external_data[tag]
            self.buffers[entries[key].buffer_index] = data  # BUG: the last object is kept
