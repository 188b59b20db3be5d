"""Breaks: FBD-WRITE-1, FBD-WRITE-3
Profile: core
Bug: the sparse copy skips holes by moving the output's position, but does not extend the output
over a hole at the end of the blob (no ``ftruncate``): a blob ending in a hole, written alone into
a real file, leaves the output short.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._support import directory


class Reader(_VerifiedReader):
    def _next_data(self, source: int, at: int, end: int) -> int:
        try:
            return min(os.lseek(source, at, os.SEEK_DATA), end)
        except OSError:  # taken as a hole to the end, whatever the error
            return end

    @staticmethod
    def _extend_to_position(fd: int) -> None:
        return  # no ftruncate for a hole at the end


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return Reader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = os.path.join(tmp, "sparse")
        with open(path, "wb") as f:
            f.write(b"head" * 2048)
            f.truncate(4 << 20)  # a hole from 8 KiB to the end
        blob = impl.FileBackedData(path)
        out = os.path.join(tmp, "out")
        with open(out, "wb") as f:
            blob.write_to_file(f)
        size = os.path.getsize(out)
        if size != 4 << 20:
            return f"a 4 MiB blob ending in a hole was written as {size} bytes"
        return None
