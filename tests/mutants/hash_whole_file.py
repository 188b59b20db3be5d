"""Breaks: FBD-HASH-3

``sha256()`` that reads the whole file into memory to hash it.
"""

from __future__ import annotations

import hashlib
import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file, peak_memory, sha

from . import implementation


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        if self._sha256 is None:
            self._sha256 = hashlib.sha256(self.to_bytes()).digest()
        return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    size = 8 << 20
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "zeros"), bytes(size))
        digests: list[bytes] = []
        held = peak_memory(lambda: digests.append(impl.FileBackedData(path).sha256()))
    if digests != [sha(bytes(size))] or held >= size // 2:
        return f"sha256() of an {size >> 20} MiB file held {held} bytes at once"
    return None
