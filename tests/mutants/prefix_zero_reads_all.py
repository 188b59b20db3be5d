"""Breaks: FBD-READ-1

``prefix(n)`` that reads ``min(n, len) or -1`` bytes: ``prefix(0)`` of a non-empty file reads and
returns the whole file instead of nothing.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"size must be int, not {type(size).__name__}: {size!r}")
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        self._check_open()
        with self._open() as f:
            return f.read(min(size, self._size) or -1)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
