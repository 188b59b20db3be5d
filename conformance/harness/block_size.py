"""A filesystem with large blocks, as the implementation sees it: every file reports an
``st_blksize`` of :data:`LARGE_BLOCK` (ZFS's records are 128 KiB, NFS and Lustre report MiBs),
where the filesystems of a test machine report 4 KiB. A bound on what a read costs (FBD-READ-1,
NDS-DEDUP-3) must hold there too: ``open(path, "rb")`` buffers one ``st_blksize``, so a port that
reads 32 bytes through it reads a whole block.

Python-level, like the other hooks: ``os.stat``, ``os.lstat`` and ``os.fstat`` report the large
block size, and ``open()`` (``builtins.open`` and ``io.open``) of a binary file without a
``buffering`` argument buffers that many bytes, as ``io.open`` does from the block size it reads.
A port that reads the block size below Python is out of its reach (it counts nothing seen)."""

from __future__ import annotations

import builtins
import contextlib
import io
import os
from collections.abc import Callable, Iterator
from typing import Any

from .forged_stat import ForgedStat

__all__ = ["BLOCKS", "LARGE_BLOCK", "blocks", "large_blocks"]

LARGE_BLOCK = 4 << 20
"""The block size reported: 4 MiB (Lustre's default stripe, an NFS rsize)."""


@contextlib.contextmanager
def large_blocks(blksize: int = LARGE_BLOCK) -> Iterator[list[str]]:
    """For the block, files report ``blksize`` as their block size; yields the list of what was
    seen using it (each forged stat, each ``open()`` given that buffer), for a test to tell an
    implementation that never looked from one that read little."""
    seen: list[str] = []
    real_open = builtins.open

    def stat_of(real: Callable[..., os.stat_result], name: str) -> Callable[..., object]:
        def stat(*args: Any, **kwargs: Any) -> object:
            seen.append(name)
            return ForgedStat(real(*args, **kwargs), st_blksize=blksize)

        return stat

    def opened(file: Any, mode: str = "r", buffering: int = -1, *args: Any, **kwargs: Any) -> Any:
        if buffering == -1 and "b" in mode and not isinstance(file, int):
            seen.append("open")
            buffering = blksize  # what io.open takes from a file's st_blksize
        return real_open(file, mode, buffering, *args, **kwargs)

    stats: list[tuple[str, Callable[..., os.stat_result]]] = [
        ("stat", os.stat), ("lstat", os.lstat), ("fstat", os.fstat)
    ]  # fmt: skip
    opens = (builtins.open, io.open)
    for name, real in stats:
        setattr(os, name, stat_of(real, f"os.{name}"))
    builtins.open = io.open = opened
    try:
        yield seen
    finally:
        for name, real in stats:
            setattr(os, name, real)
        builtins.open, io.open = opens


BLOCKS = ("as-here", "large")
"""The block sizes a read bound is judged at: this filesystem's, and :data:`LARGE_BLOCK`."""


def blocks(kind: str) -> contextlib.AbstractContextManager[list[str]]:
    """:func:`large_blocks` for ``"large"``; for ``"as-here"`` nothing changed (nothing seen)."""
    return large_blocks() if kind == "large" else contextlib.nullcontext([])
