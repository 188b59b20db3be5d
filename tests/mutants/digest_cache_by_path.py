"""Breaks: FBD-HASH-1, NDS-DEDUP-2

A process-wide cache of digests keyed by (absolute path, size), so that re-wrapping a file does
not hash it again: a new file of the same size at a path whose earlier file was hashed gets the
earlier file's digest.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file, sha

from . import implementation

_DIGESTS: dict[tuple[str, int], bytes] = {}


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        self._check_open()
        key = (os.path.abspath(self._path), self._size)
        if self._sha256 is None and key in _DIGESTS:
            self._sha256 = _DIGESTS[key]
        digest = super().sha256()
        _DIGESTS[key] = digest
        return digest


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    """A file hashed, then another of its size at its path: the new one's digest is its own."""
    with directory() as tmp:
        path = make_file(tmp + "/w", b"first")
        earlier = impl.FileBackedData(path)
        earlier.sha256()
        earlier.close()
        make_file(path, b"other")
        digest = impl.FileBackedData(path).sha256()
        if digest != sha(b"other"):
            return "a new file of the same size at a hashed file's path got the old file's digest"
        return None
