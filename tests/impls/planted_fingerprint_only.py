"""The reference with a planted bug: dedup by fingerprint (length, first 32 bytes) alone.

Blobs of equal length and equal first 32 bytes share a buffer even when their tails differ; the
state machine must catch it (NDS-DEDUP-2).
"""

from __future__ import annotations

from reference import Cord, DataEntry, FileBackedData, NamedDataStoreOutput
from reference import NamedDataStore as _Reference
from reference.named_data import _fingerprint

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]


class NamedDataStore(_Reference):
    def _add(
        self,
        key: str,
        data: bytes | FileBackedData,
        alignment: int,
        tag: str | None,
        layout: object,
    ) -> None:
        lone = self._fps.get(_fingerprint(data))
        if key in self._tags or lone is None:
            super()._add(key, data, alignment, tag, layout)
            return
        # BUG: a fingerprint match is taken for equal contents, without comparing digests.
        entries = self.pte_data if tag is None else self.external_data.setdefault(tag, {})
        entries[key] = DataEntry(lone, alignment, layout)
        self._tags[key] = tag
