"""Breaks: FBD-HASH-3

``sha256()`` that reads the whole file into memory to hash it.
"""

from __future__ import annotations

import hashlib

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        if self._sha256 is None:
            self._sha256 = hashlib.sha256(self.to_bytes()).digest()
        return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
