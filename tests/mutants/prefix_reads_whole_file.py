"""Breaks: FBD-READ-1, NDS-DEDUP-3

``prefix(n)`` that reads the whole file and slices it, so a fingerprint reads every blob in full.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import prefix_cost


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        wanted = len(super().prefix(size))
        return self.to_bytes()[:wanted]


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return prefix_cost(impl)
