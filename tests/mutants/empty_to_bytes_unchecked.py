"""Breaks: FBD-FAULT-2, FBD-CHANGE-1

``FileBackedData.to_bytes`` with an early return for an empty blob: it returns ``b""`` without
opening the file, so an empty file that has since been removed, grown or replaced answers as if it
were still there and empty.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_b import empty_then_grown


class FileBackedData(reference.FileBackedData):
    def to_bytes(self) -> bytes:
        if not self.closed and len(self) == 0:
            return b""
        return super().to_bytes()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return empty_then_grown(impl, lambda blob: blob.to_bytes(), "to_bytes()")
