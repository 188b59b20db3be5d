"""Breaks: FBD-IDENT-2
Profile: strict
Bug: each object opens its file at construction and keeps the descriptor until ``close()`` (to
read from it later, and to pin the inode), so a process cannot hold more blobs than descriptors.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    _fd = -1

    def _init(self, *args: Any, **kwargs: Any) -> None:
        super()._init(*args, **kwargs)
        self._fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)

    def _close(self) -> None:
        super()._close()
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        paths = [make_file(os.path.join(tmp, f"w{i}"), b"abc") for i in range(8)]
        before = len(os.listdir("/proc/self/fd"))
        blobs = [impl.FileBackedData(p) for p in paths]
        held = len(os.listdir("/proc/self/fd")) - before
        for blob in blobs:
            blob.close()
    if held > 0:
        return f"8 open borrowers hold {held} descriptors between calls"
    return None
