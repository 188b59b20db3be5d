"""Breaks: FBD-CHANGE-1

Reads trust the file's size now instead of checking it against the size recorded when it was
wrapped: a file that grew or shrank is written with its new size while ``len()`` reports the old.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._proofs_c import blob_in, reads_refused


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        st = os.stat(self._path)  # what the file is now: its size and time taken as recorded
        identity = (*self._identity[:2], st.st_mtime_ns)
        return _VerifiedReader(self._location, identity, st.st_size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with blob_in(impl) as (_, path, blob):
        with open(path, "ab") as f:
            f.write(b" and more")
        return reads_refused(blob, "of 7 bytes whose file grew to 16")
