"""Breaks: FBD-CLOSED-1
Profile: strict
Bug: ``len()`` returns the recorded size without checking that the object is open ("the size
needs no file"), so a closed blob still answers ``len`` and is taken by ``Cord.append``.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def __len__(self) -> int:
        return self._size


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"abc") as (_, blob):
        blob.close()
        try:
            size = len(blob)
        except ValueError:
            return None
        return f"len() of a closed FileBackedData returned {size}"
