"""What a call costs, for the suite's bounds: bytes read (Linux /proc/self/io) and peak memory
(``tracemalloc``), each measured around the call alone."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..api import Implementation
from .helpers import PREFIX, Blobs, sha

__all__ = [
    "BIG",
    "MEMORY_BOUND",
    "PREFIX_READ_BOUND",
    "READ_BOUND",
    "READ_LIMIT",
    "MiB",
    "bytes_read",
    "io_counters",
    "peak_memory",
    "rchar",
    "warm_up",
]

MiB = 1 << 20
BIG = 64 * MiB
"""A sparse file far larger than the bounds below: reading, copying or holding it would show."""
MEMORY_BOUND = 32 * MiB
"""Peak traced memory allowed while streaming a file far larger than it (ExecuTorch's 8 MiB chunks
are well under)."""
READ_BOUND = 1 * MiB
"""Bytes an operation on BIG that must not read (or copy) the file may still read (or write)."""
PREFIX_READ_BOUND = 64 * 1024
"""Bytes ``prefix(n)`` or one fingerprint may read beyond the ``n`` (or 32) bytes asked for: one
read buffer, as FBD-READ-1 and NDS-DEDUP-3 say, not the file."""
READ_LIMIT = MiB // 4
"""Bytes a store's "does not read the file" check tolerates (buffered reads, /proc reads)."""

_NO_PROC_IO = "/proc/self/io is needed to count the bytes read"


def io_counters() -> tuple[int, int]:
    """(rchar, wchar): bytes this process has read and written so far through read(2), write(2)
    and their kin.

    Without /proc/self/io (not Linux) the test is skipped as untested, not "not applicable": the
    clause holds for every implementation, only this platform cannot show it."""
    try:
        text = Path("/proc/self/io").read_text(encoding="ascii")
    except OSError:
        pytest.skip(_NO_PROC_IO)
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    if "rchar" not in fields or "wchar" not in fields:
        pytest.skip(_NO_PROC_IO)
    return int(fields["rchar"]), int(fields["wchar"])


def rchar() -> int:
    """Bytes this process has read so far (see :func:`io_counters` for the skip)."""
    return io_counters()[0]


@contextmanager
def bytes_read() -> Iterator[list[int]]:
    """``[n]`` once the block ends: the bytes this process read inside it."""
    counted: list[int] = []
    before = rchar()
    yield counted
    counted.append(rchar() - before)


def peak_memory(call: Callable[[], object]) -> int:
    """Peak memory traced by ``tracemalloc`` while ``call()`` runs, above what was allocated."""
    gc.collect()
    tracemalloc.start()
    try:
        call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def warm_up(impl: Implementation, blobs: Blobs) -> None:
    """Run the store's code paths once on tiny blobs (a match, a re-add, a tag, a merge, a trusted
    digest), so lazy imports and caches do not count in the call a test measures."""
    store = impl.NamedDataStore()
    tiny = [blobs.wrap(blobs.file(PREFIX + tail)) for tail in (b"1", b"2", b"1")]
    store.add_named_data("w0", tiny[0])
    store.add_named_data("w1", tiny[1])
    store.add_named_data("w2", tiny[2], 1, "tag")
    store.add_named_data("w0", tiny[0])
    store.add_named_data("w3", PREFIX + b"2")
    impl.NamedDataStore().merge_named_data_store(store.get_named_data_store_output())
    blobs.moved(b"moved", sha256=sha(b"moved")).sha256()
