"""Breaks: FBD-CLOSED-1

No closed state: after ``close()``, ``len()`` and a cached ``sha256()`` still answer and reads go
to whatever is at the path now (``FileNotFoundError``, or another file's data).
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_b import refused


class FileBackedData(reference.FileBackedData):
    def _check_open(self) -> None:
        pass


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), b"weights"))
    blob.close()
    return refused(lambda: len(blob), ValueError, "len() of a closed blob")
