"""Breaks: FBD-HASH-3
Profile: core
Bug: ``sha256()`` hashes ``to_bytes()``, the whole file in memory at once, instead of a bounded
buffer at a time.
"""

from __future__ import annotations

import hashlib
import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file, peak_memory


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        self._check_open()
        if self._sha256 is None:
            self._sha256 = hashlib.sha256(self.to_bytes()).digest()
        return self._sha256


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), os.urandom(16 << 20)))
        peak = peak_memory(blob.sha256)
        if peak > 8 << 20:
            return f"sha256() of a 16 MiB file held {peak} bytes"
        return None
