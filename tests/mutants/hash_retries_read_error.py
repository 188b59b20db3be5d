"""Breaks: FBD-FAULT-1

``sha256()`` that hashes again when a read fails ("a transient error"): an I/O error that does not
repeat is never seen by the caller.
"""

from __future__ import annotations

import errno
import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_b import failing_read, refused


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        try:
            return super().sha256()
        except OSError as exc:
            if isinstance(exc, (FileNotFoundError, reference.FileChangedError)):
                raise
            return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), b"weights"))
        with failing_read() as fault:
            seen = refused(blob.sha256, OSError, "sha256() whose read fails", code=errno.EIO)
    if not fault.fired:
        raise RuntimeError("sha256() read nothing through open() or os.read: no fault injected")
    return seen
