"""Breaks: FBD-FAULT-2, FBD-CHANGE-1, FBD-MOVE-7

``FileBackedData.sha256`` with an early return for an empty blob: it returns the digest of no bytes
without looking at the file or at a supplied digest, so an empty file that has since been removed,
grown or replaced answers as if it were still there and empty.
"""

from __future__ import annotations

import hashlib

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_b import empty_then_grown


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        if not self.closed and len(self) == 0:
            return hashlib.sha256().digest()
        return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return empty_then_grown(impl, lambda blob: blob.sha256(), "sha256()")
