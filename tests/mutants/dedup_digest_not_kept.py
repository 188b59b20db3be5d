"""Breaks: NDS-DEDUP-8, NDS-DEDUP-4

A store that keeps no digests: each fingerprint match hashes the stored buffer again.
"""

from __future__ import annotations

from reference.named_data import _digest

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _buffer_digest(self, index: int) -> bytes:
        return _digest(self.buffers[index])


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
