"""Breaks: FBD-MOVE-7, FBD-HASH-2

``sha256()`` that checks the file before returning a digest it already knows (supplied or cached):
a file that changed or went since raises (FBD-FAULT-2 too), where the known digest needs no read.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_b import known_digest_after_removal


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        if not self.closed and self._sha256 is not None:
            self._verify()
        return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return known_digest_after_removal(impl, supplied=True)
