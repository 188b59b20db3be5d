"""Breaks: FBD-CHANGE-1
Profile: strict
Bug: the check after the last byte compares only the file's size with the recorded one, not its
modification and change times: a file rewritten in place, to the same size, while it is streamed
is written half old, half new, without an error.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._support import directory, make_file


class Reader(_VerifiedReader):
    def check_unchanged(self) -> None:
        self._check_size(os.fstat(self._file.fileno()).st_size)


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return Reader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class RewritingSink:
    """Rewrites the blob's file in place, same size, after the first chunk it is given."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.data = bytearray()

    def write(self, data: bytes | memoryview) -> int:
        if not self.data:
            with open(self.path, "r+b") as f:
                f.write(b"\xff" * os.path.getsize(self.path))
        self.data += data
        return len(data)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        original = b"\0" * (3 << 20)
        path = make_file(os.path.join(tmp, "w"), original)
        blob = impl.FileBackedData(path)
        sink = RewritingSink(path)
        try:
            blob.write_to_file(sink)
        except OSError:
            return None
        if bytes(sink.data) != original:
            return "a file rewritten in place while streamed was written mixed, without an error"
        return None
