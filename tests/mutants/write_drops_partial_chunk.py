"""Breaks: FBD-WRITE-1

``FileBackedData.write_to_file`` into an output that is neither a file from ``open()`` nor an
``io.BytesIO`` (a socket-like sink, a wrapper) that copies ``size // chunk`` whole chunks and
forgets the remainder when the blob holds more than one chunk.
"""

from __future__ import annotations

import io
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import Sink, written_to

_CHUNK = 1 << 20
_KNOWN = (io.FileIO, io.BufferedWriter, io.BufferedRandom, io.BytesIO)


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if (
            self.closed
            or isinstance(outfile, _KNOWN)
            or not hasattr(outfile, "write")
            or len(self) <= _CHUNK
            or len(self) % _CHUNK == 0
        ):
            super().write_to_file(outfile)
            return
        self.prefix(0)
        with open(self.path, "rb") as f:
            for _ in range(len(self) // _CHUNK):
                chunk = memoryview(f.read(_CHUNK))
                while chunk:
                    taken = outfile.write(chunk)
                    chunk = chunk[len(chunk) if taken is None else taken :]


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return written_to(impl, _CHUNK + 100, Sink())
