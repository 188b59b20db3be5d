"""Inode reuse, made to happen on demand (FBD-IDENT-1).

ext4 gives a freed inode number to the next file it makes, but not reliably enough for a test. So
:func:`inode_reuse` patches ``os.stat``, ``os.lstat`` and ``os.fstat`` to report a new file with the
(``st_dev``, ``st_ino``) of a deleted one, exactly when the kernel could have reused it: only while
no descriptor of this process still refers to the deleted inode (an open inode is never freed).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from .forged_stat import ForgedStat
from .observe import unobserved

__all__ = ["Identity", "inode_held", "inode_reuse"]

Identity = tuple[int, int]

_real_stat, _real_lstat, _real_fstat = os.stat, os.lstat, os.fstat


def inode_held(identity: Identity) -> bool:
    """Whether a descriptor of this process refers to the inode ``identity``."""
    for name in os.listdir("/proc/self/fd"):
        try:
            st = _real_stat(f"/proc/self/fd/{name}")
        except OSError:
            continue  # the descriptor listdir itself used, gone since
        if (st.st_dev, st.st_ino) == identity:
            return True
    return False


@contextlib.contextmanager
def inode_reuse(old: Identity, new: Identity) -> Iterator[list[int]]:
    """For the block, report the file ``new`` as having the identity ``old`` whenever ``old`` is
    not held open (the kernel may then have reused its number); yields a list that counts how
    often the reuse was reported."""
    if not os.path.isdir("/proc/self/fd"):
        raise RuntimeError("inode reuse is simulated from /proc/self/fd, which is not here")
    reported: list[int] = []
    looked: list[int] = []

    def forged(real: Callable[..., os.stat_result]) -> Callable[..., object]:
        def stat(*args: Any, **kwargs: Any) -> object:
            st = real(*args, **kwargs)
            if (st.st_dev, st.st_ino) == new:
                looked.append(1)
                if old[0] == new[0] and not inode_held(old):
                    reported.append(1)
                    return ForgedStat(st, st_ino=old[1])
            return st

        return stat

    saved = (os.stat, os.lstat, os.fstat)
    os.stat, os.lstat, os.fstat = forged(_real_stat), forged(_real_lstat), forged(_real_fstat)  # type: ignore[assignment]  # same calls, a stat-like result
    try:
        yield reported
    finally:
        os.stat, os.lstat, os.fstat = saved
    if not looked and not inode_held(old):
        # neither looked at the new file where the harness could see it, nor holds the old
        # inode (which then could not have been reused): the reuse was never shown to it
        unobserved(
            "the implementation made no os.stat/os.lstat/os.fstat of the new file the harness "
            "could see, so the reused inode number was never shown to it"
        )
