"""Breaks: FBD-FAULT-2, FBD-CHANGE-1, FBD-MOVE-7

``FileBackedData.sha256`` with an early return for an empty blob: it returns the digest of no bytes
without looking at the file or at a supplied digest, so an empty file that has since been removed,
grown or replaced answers as if it were still there and empty.
"""

from __future__ import annotations

import hashlib

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        if not self.closed and len(self) == 0:
            return hashlib.sha256().digest()
        return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
