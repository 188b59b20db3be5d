"""Breaks: FBD-READ-1, FBD-READ-3
Profile: core
Bug: ``prefix`` checks its size with ``size <= 0``, so ``prefix(0)``, the empty prefix every
length allows, raises ``ValueError`` instead of returning ``b""``.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import file_backed

from . import implementation


class FileBackedData(file_backed.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if type(size) is int and size == 0:
            raise ValueError(f"size must be > 0, got {size}")
        return super().prefix(size)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    from ._support import prefix_wrong

    return prefix_wrong(impl, b"abc", 0, b"")
