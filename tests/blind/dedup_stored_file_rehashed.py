"""Breaks: NDS-DEDUP-10, NDS-DEDUP-11
Profile: core
Bug: the digest of a stored buffer is computed as ``sha256(bytes)`` of its contents, loading a
file-backed buffer with ``to_bytes()`` and ignoring the digest it was supplied with.
"""

from __future__ import annotations

import hashlib

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class NamedDataStore(reference.NamedDataStore):
    def _buffer_digest(self, index: int) -> bytes:
        digest = self._digests.get(index)
        if digest is None:
            buffer = self.buffers[index]
            data = buffer if isinstance(buffer, bytes) else buffer.to_bytes()
            digest = self._digests[index] = hashlib.sha256(data).digest()
        return digest


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    head = b"h" * 32
    stored, added = head + b"written by the backend", head + b"what it meant to write"
    with directory() as tmp:
        promised = hashlib.sha256(added).digest()  # the caller's (wrong) promise
        blob = impl.FileBackedData(make_file(tmp + "/w", stored), sha256=promised)
        store = impl.NamedDataStore()
        store.add_named_data("file", blob)
        store.add_named_data("bytes", added)
        out = store.get_named_data_store_output()
        if len(out.buffers) != 1:
            return (
                "a stored file's supplied digest was not used: the matching blob got its own buffer"
            )
        return None
