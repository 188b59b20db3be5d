"""Breaks: FBD-READ-1

``prefix(n)`` that reads ``min(n, len) or -1`` bytes: ``prefix(0)`` of a non-empty file reads and
returns the whole file instead of nothing.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        head = super().prefix(size)  # the reference's checks, and its answer for a size not 0
        return head if size else super().prefix(len(self))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        got = impl.FileBackedData(make_file(os.path.join(tmp, "w"), b"weights")).prefix(0)
        if got:
            return f"prefix(0) of a 7-byte blob returned {got!r}"
        return None
