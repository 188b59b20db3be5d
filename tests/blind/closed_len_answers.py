"""Breaks: FBD-CLOSED-1
Profile: strict
Bug: ``len()`` returns the recorded size without checking that the object is open ("the size
needs no file"), so a closed blob still answers ``len`` and is taken by ``Cord.append``.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    def __len__(self) -> int:
        return self._size


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), b"abc"))
        blob.close()
        try:
            size = len(blob)
        except ValueError:
            return None
        return f"len() of a closed FileBackedData returned {size}"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
