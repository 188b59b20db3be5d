"""Breaks: FBD-FORK-1

The backstop of garbage collection and exit checks the process, but ``close()`` does not: a child
made by ``fork`` that closes the inherited object (a ``with`` block in a worker) deletes its
parent's file.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.ownership import _remove_if_same, _unregister
from tests.blind._support import directory

from . import implementation
from ._proofs_a import owned


class FileBackedData(reference.FileBackedData):
    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._owner:  # no check of the process: a forked child deletes the parent's file
                _remove_if_same(self._location, self._identity)
            if self._finalizer is not None:
                self._finalizer.detach()
            if self._owner:
                _unregister(self._identity)
            self._closed = True


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    """A worker made by ``fork`` closes its inherited copy of the parent's owner."""
    with directory() as tmp:
        owner, path = owned(impl, tmp)
        child = os.fork()
        if child == 0:  # pragma: no cover  # the child's coverage is not collected
            try:
                with owner:
                    pass
            finally:
                os._exit(0)
        os.waitpid(child, 0)
        kept = os.path.exists(path)
        owner.close()
        return None if kept else "a forked child's close() removed the file its parent owns"
