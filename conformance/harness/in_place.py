"""A file rewritten in place, to its own size, at a chosen point of a read (FBD-CHANGE-1): no race,
the change is made from inside the read, by the sink it writes to or by a profile hook that sees
the implementation's first read call return."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

__all__ = ["READ_CALLS", "after_first_read", "aged", "rewrite_in_place"]

READ_CALLS = frozenset(
    {"read", "readinto", "read1", "readinto1", "readall", "readv", "pread", "preadv"}
)
"""Names of the C functions by which Python code reads a file (``io``'s files' methods, ``os``)."""

_PAST_NS = 1_000_000_000 * 1_000_000_000
"""A modification time (2001-09-09) that no write made now can have: a write after ``aged`` moves
``st_mtime_ns`` whatever the granularity of the filesystem's timestamps."""


def aged(path: Path) -> None:
    """Set ``path``'s access and modification times far in the past, before it is wrapped."""
    os.utime(path, ns=(_PAST_NS, _PAST_NS))


def rewrite_in_place(path: Path, reset_mtime: bool) -> None:
    """Truncate ``path`` to nothing and regrow it to its size (zeros from there on); with
    ``reset_mtime``, then set its modification time back to what it was, as a writer covering its
    tracks would, and wait until its ``st_ctime_ns`` has moved (within one tick of the clock it may
    not have), so that only ``st_ctime_ns`` tells the change."""
    before = os.stat(path)
    os.truncate(path, 0)
    os.truncate(path, before.st_size)
    if not reset_mtime:
        return
    deadline = time.monotonic() + 10
    while True:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(path).st_ctime_ns != before.st_ctime_ns:
            return
        if time.monotonic() > deadline:  # a clock that does not move
            raise AssertionError(f"st_ctime_ns of {path} did not move in 10 s")
        time.sleep(0.001)


@contextlib.contextmanager
def after_first_read(action: Callable[[], object]) -> Iterator[Callable[[], bool]]:
    """Run ``action`` once, when the first read call (:data:`READ_CALLS`) made from Python code in
    the block returns, in this thread or one started in the block; yield a function telling
    whether it ran (not when the implementation reads only in C code, which no hook sees)."""
    ran = threading.Event()

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "c_return" and not ran.is_set() and getattr(arg, "__name__", "") in READ_CALLS:
            ran.set()
            action()

    old = sys.getprofile()
    sys.setprofile(hook)
    threading.setprofile(hook)
    try:
        yield ran.is_set
    finally:
        sys.setprofile(old)
        threading.setprofile(None)
