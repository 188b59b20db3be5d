"""Breaks: FBD-WRITE-1, CORD-WRITE-1

The small-file path of ``write_to_file`` (a file of at most a page, read whole and written like
``bytes``) reads one byte less than a page: a file of exactly 4096 bytes is written without its
last byte, silently; every other size is right.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.file_backed import Writable, write_all
from reference.verified_reader import SMALL_PIECE, _VerifiedReader

from . import implementation
from ._proofs_c import to_real_file


class _Reader(_VerifiedReader):
    def write_small(self, outfile: Writable) -> None:
        data = self._file.read(min(self.remaining, SMALL_PIECE - 1)) or b""
        self.remaining = 0
        write_all(outfile, memoryview(data))
        self.check_unchanged()


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _Reader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    data = os.urandom(4096)
    got = to_real_file(impl, data, b"", 0, "wb")
    if got != data:
        return f"a 4096-byte blob was written as {len(got)} bytes"
    return None
