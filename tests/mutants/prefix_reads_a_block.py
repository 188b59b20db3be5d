"""Breaks: FBD-READ-1, NDS-DEDUP-3

``prefix(n)`` read through a buffered ``open(path, "rb")`` after the reference's checks, as
ExecuTorch 1.5.1 reads it: the first read fills a buffer of the file's ``st_blksize``. On a
filesystem that reports 4 KiB that is within ``n`` + 64 KiB; on ZFS (128 KiB records) or NFS and
Lustre (MiBs) it reads MiBs for 32 bytes, and so does each fingerprint of a new file (NDS-DEDUP-3).
"""

from __future__ import annotations

import builtins
from typing import Any
from unittest import mock

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import prefix_cost


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


_open = builtins.open


def _large_blocks(
    file: Any, mode: str = "r", buffering: int = -1, *args: Any, **kwargs: Any
) -> Any:
    """``open`` where files report 4 MiB blocks (NFS, Lustre): a default-buffered read buffers
    that much."""
    if buffering == -1 and "b" in mode and "r" in mode and "+" not in mode:
        buffering = 4 << 20
    return _open(file, mode, buffering, *args, **kwargs)


def scenario(impl: Implementation) -> str | None:
    with mock.patch("builtins.open", _large_blocks):
        return prefix_cost(impl, size=8 << 20)
