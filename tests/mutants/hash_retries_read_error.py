"""Breaks: FBD-FAULT-1

``sha256()`` that hashes again when a read fails ("a transient error"): an I/O error that does not
repeat is never seen by the caller.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        try:
            return super().sha256()
        except OSError as exc:
            if isinstance(exc, (FileNotFoundError, reference.FileChangedError)):
                raise
            return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
