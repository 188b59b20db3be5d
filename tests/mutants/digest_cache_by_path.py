"""Breaks: FBD-HASH-1, NDS-DEDUP-2

A process-wide cache of digests keyed by (absolute path, size), so that re-wrapping a file does
not hash it again: a new file of the same size at a path whose earlier file was hashed gets the
earlier file's digest.
"""

from __future__ import annotations

import os

import reference

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
