"""Breaks: FBD-READ-1, NDS-DEDUP-3
Profile: core
Bug: ``prefix(n)`` treats a read that returns fewer than ``n`` bytes as a file that shrank, so a
blob shorter than ``n`` (any blob under the 32 bytes of the dedup fingerprint) raises instead of
giving its whole contents.
"""

from __future__ import annotations

import errno

import reference
from conformance.api import Implementation

from . import implementation
from ._support import prefix_wrong


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        data = super().prefix(size)
        if len(data) != size:  # "a short read means the file changed"
            raise reference.FileChangedError(
                errno.ESTALE, f"short read: {len(data)} of {size} bytes", self.path
            )
        return data


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return prefix_wrong(impl, b"0123456789", 32, b"0123456789")
