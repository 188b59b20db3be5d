"""Breaks: FBD-READ-1

``prefix(n)`` that does one read of at most a chunk (1 MiB): right for the 32 bytes of a
fingerprint, short for a prefix of more than a chunk.
"""

from __future__ import annotations

import reference

from . import implementation

_CHUNK = 1 << 20


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if type(size) is int and size > _CHUNK:
            size = _CHUNK
        return super().prefix(size)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
