"""Breaks: NDS-DEDUP-7

A stored empty buffer's digest is taken to be SHA-256 of nothing, with no look at the blob: an
empty file-backed buffer added with a (wrong) supplied digest is then shared by every later empty
blob, where that digest makes it a buffer of its own.
"""

from __future__ import annotations

import hashlib

import reference
from conformance.api import Implementation
from tests.blind._support import directory, sha

from . import implementation
from ._proofs_a import blob, store_of

_EMPTY = hashlib.sha256(b"").digest()


class NamedDataStore(reference.NamedDataStore):
    def _buffer_digest(self, index: int) -> bytes:
        if len(self.buffers[index]) == 0:
            return _EMPTY
        return super()._buffer_digest(index)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    """The empty file with a wrong digest comes first: the later empty bytes are another blob."""
    with directory() as tmp:
        wrong = blob(impl, tmp, "e", b"", sha256=sha(b"not empty"))
        out = store_of(impl, ("file", wrong), ("bytes", b""))
        if len(out.buffers) != 2:
            return "empty bytes share an empty file's buffer whose supplied digest is another"
        return None
