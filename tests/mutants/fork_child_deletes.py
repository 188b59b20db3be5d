"""Breaks: FBD-FORK-1

A release backstop with no process check: a child made by ``fork`` that exits, or collects the
inherited object, deletes its parent's file.
"""

from __future__ import annotations

import os
import weakref

import reference
from reference.file_backed import _release

from . import implementation


def _release_here(path: str, identity: tuple[int, int]) -> None:
    _release(path, identity, os.getpid())  # whichever process runs it counts as the owner


class FileBackedData(reference.FileBackedData):
    def _init(self, path: str, st: os.stat_result, digest: bytes | None, owner: bool) -> None:
        super()._init(path, st, digest, owner)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, _release_here, path, self._identity)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
