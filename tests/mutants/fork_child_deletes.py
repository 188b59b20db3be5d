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


def _release_here(path: str, identity: tuple[int, int], fd: int) -> None:
    _release(path, identity, os.getpid(), os.close, fd)  # whichever process runs it is the owner


class FileBackedData(reference.FileBackedData):
    def _init(
        self, path: str, st: os.stat_result, digest: bytes | None, owner: bool, fd: int = -1
    ) -> None:
        super()._init(path, st, digest, owner, fd=fd)
        if owner:
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, _release_here, path, self._identity, self._fd)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
