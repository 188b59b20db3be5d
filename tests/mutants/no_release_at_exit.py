"""Breaks: FBD-CLOSE-5

Owned files are released at ``close()`` and at garbage collection, but the finalizer is not run
at interpreter exit (``weakref.finalize(...).atexit = False``): owners alive at exit leak.
"""

from __future__ import annotations

import os

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def _init(self, path: str, st: os.stat_result, digest: bytes | None, owner: bool) -> None:
        super()._init(path, st, digest, owner)
        if self._finalizer is not None:
            self._finalizer.atexit = False


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
