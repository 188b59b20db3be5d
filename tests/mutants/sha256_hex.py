"""Breaks: FBD-HASH-1

Hex and raw digests swapped in ``FileBackedData.sha256()``: it returns the 64 ASCII bytes of the
hex digest instead of the 32 raw bytes (so a file never dedups with equal ``bytes`` either).
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        return super().sha256().hex().encode()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
