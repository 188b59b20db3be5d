"""Breaks: NDS-DEDUP-7

A stored empty buffer's digest is taken to be SHA-256 of nothing, with no look at the blob: an
empty file-backed buffer added with a (wrong) supplied digest is then shared by every later empty
blob, where that digest makes it a buffer of its own.
"""

from __future__ import annotations

import hashlib

import reference

from . import implementation

_EMPTY = hashlib.sha256(b"").digest()


class NamedDataStore(reference.NamedDataStore):
    def _buffer_digest(self, index: int) -> bytes:
        if len(self.buffers[index]) == 0:
            return _EMPTY
        return super()._buffer_digest(index)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
