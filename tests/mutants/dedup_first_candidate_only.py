"""Breaks: NDS-DEDUP-1

Dedup that confirms a fingerprint match against the first stored buffer with that fingerprint
only: when two different stored blobs share a fingerprint, a blob equal to the second is stored
again instead of sharing its buffer.
"""

from __future__ import annotations

from typing import Any

from reference.named_data import DataEntry, _digest, _fingerprint

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        if key in self._tags:
            self._readd(key, data, alignment, tag, layout)
            return
        fingerprint = _fingerprint(data)
        candidates = self._fingerprints.get(fingerprint, [])[:1]
        index = next((i for i in candidates if self.buffers[i] is data), None)
        digest = _digest(data) if candidates and index is None else None
        if digest is not None:
            index = next((i for i in candidates if self._buffer_digest(i) == digest), None)
        if index is None:
            index = len(self.buffers)
            self.buffers.append(data)
            self._fingerprints.setdefault(fingerprint, []).append(index)
            if digest is not None:
                self._digests[index] = digest
        entries = self.pte_data if tag is None else self.external_data.setdefault(tag, {})
        entries[key] = DataEntry(index, alignment, layout)
        self._tags[key] = tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
