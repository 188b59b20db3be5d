"""Breaks: FBD-READ-1
Profile: core
Bug: ``prefix(n)`` reuses the streaming read: it reads one whole chunk (1 MiB) and slices the
first ``n`` bytes of it, so a 32-byte fingerprint reads up to a megabyte.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.verified_reader import CHUNK_SIZE

from . import implementation
from ._support import directory, make_file, read_cost


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"size must be int, not {type(size).__name__}: {size!r}")
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        self._check_open()
        with self._open() as f:
            return f.read(CHUNK_SIZE)[:size]  # one chunk, whatever was asked


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), os.urandom(4 << 20)))
        got: list[bytes] = []
        cost = read_cost(lambda: got.append(blob.prefix(32)))
        if len(got[0]) != 32:
            return f"prefix(32) returned {len(got[0])} bytes"
        if cost > 32 + (64 << 10) + 4096:
            return f"prefix(32) of a 4 MiB file read {cost} bytes"
        return None
