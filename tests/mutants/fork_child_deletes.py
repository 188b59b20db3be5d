"""Breaks: FBD-FORK-1

A release backstop with no process check: a child made by ``fork`` that exits, or collects the
inherited object, deletes its parent's file.
"""

from __future__ import annotations

import gc
import os
import weakref

from conformance.api import Implementation
from reference.location import Identity, Location
from reference.ownership import _release
from tests.blind._support import directory, make_file

from . import implementation
from ._base import Owners


def _release_here(location: Location, identity: Identity) -> None:
    _release(location, identity, os.getpid())  # whichever process runs it is the owner


class FileBackedData(Owners):
    def _made_owner(self) -> None:
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _release_here, self._location, self._identity)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"weights")
        owners = [impl.FileBackedData(path, cleanup=True)]
        pid = os.fork()
        if pid == 0:  # the child collects its copy of the owner, then exits
            try:
                owners.clear()
                gc.collect()
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        kept = os.path.exists(path)
        owners[0].close()
    return None if kept else "a forked child that collected its copy of an owner deleted its file"
