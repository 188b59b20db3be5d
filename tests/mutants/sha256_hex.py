"""Breaks: FBD-HASH-1

Hex and raw digests swapped in ``FileBackedData.sha256()``: it returns the 64 ASCII bytes of the
hex digest instead of the 32 raw bytes (so a file never dedups with equal ``bytes`` either).
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file, sha

from . import implementation


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        return super().sha256().hex().encode()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        got = impl.FileBackedData(make_file(os.path.join(tmp, "w"), b"weights")).sha256()
        if got != sha(b"weights"):
            return f"sha256() returned {got!r}, not the 32-byte SHA-256 digest"
        return None
