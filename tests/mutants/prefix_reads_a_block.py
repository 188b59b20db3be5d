"""Breaks: FBD-READ-1, NDS-DEDUP-3

``prefix(n)`` read through a buffered ``open(path, "rb")`` after the reference's checks, as
ExecuTorch 1.5.1 reads it: the first read fills a buffer of the file's ``st_blksize``. On a
filesystem that reports 4 KiB that is within ``n`` + 64 KiB; on ZFS (128 KiB records) or NFS and
Lustre (MiBs) it reads MiBs for 32 bytes, and so does each fingerprint of a new file (NDS-DEDUP-3).
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if isinstance(size, bool) or not isinstance(size, int):  # the reference's checks
            raise TypeError(f"size must be int, not {type(size).__name__}: {size!r}")
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        super().prefix(0)  # and its checks of a closed object and of the file
        with open(self._path, "rb") as f:  # buffered: its first read is one st_blksize
            return f.read(min(size, self._size))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
