"""Breaks: FBD-READ-2

``to_bytes()`` that reads a blob of more than one chunk as ``size // chunk`` whole chunks and
forgets the remainder: a blob over 1 MiB that is not a multiple of it comes out short.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import whole_read

_CHUNK = 1 << 20


class FileBackedData(reference.FileBackedData):
    def to_bytes(self) -> bytes:
        if self.closed or len(self) <= _CHUNK or len(self) % _CHUNK == 0:
            return super().to_bytes()
        self.prefix(0)
        with open(self.path, "rb") as f:
            return b"".join(f.read(_CHUNK) for _ in range(len(self) // _CHUNK))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return whole_read(impl, _CHUNK + 100, lambda blob: blob.to_bytes())
