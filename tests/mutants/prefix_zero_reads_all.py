"""Breaks: FBD-READ-1

``prefix(n)`` that reads ``min(n, len) or -1`` bytes: ``prefix(0)`` of a non-empty file reads and
returns the whole file instead of nothing.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        head = super().prefix(size)  # the reference's checks, and its answer for a size not 0
        return head if size else super().prefix(len(self))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
