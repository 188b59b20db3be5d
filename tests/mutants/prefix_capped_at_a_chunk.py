"""Breaks: FBD-READ-1

``prefix(n)`` that does one read of at most a chunk (1 MiB): right for the 32 bytes of a
fingerprint, short for a prefix of more than a chunk.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import whole_read

_CHUNK = 1 << 20


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if type(size) is int and size > _CHUNK:
            size = _CHUNK
        return super().prefix(size)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return whole_read(impl, _CHUNK + 100, lambda blob: blob.prefix(len(blob)))
