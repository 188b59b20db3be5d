"""Breaks: FBD-FORK-1

A release backstop with no process check: a child made by ``fork`` that exits, or collects the
inherited object, deletes its parent's file.
"""

from __future__ import annotations

import os
import weakref

from reference.ownership import _release

from . import implementation
from ._base import Owners


def _release_here(path: str, identity: tuple[int, int], fd: int) -> None:
    _release(path, identity, os.getpid(), os.close, fd)  # whichever process runs it is the owner


class FileBackedData(Owners):
    def _made_owner(self) -> None:
        self._finalizer.detach()
        self._finalizer = weakref.finalize(
            self, _release_here, self._path, self._identity, self._fd
        )


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
