"""Breaks: FBD-FORK-1

The backstop of garbage collection and exit checks the process, but ``close()`` does not: a child
made by ``fork`` that closes the inherited object (a ``with`` block in a worker) deletes its
parent's file.
"""

from __future__ import annotations

import reference
from reference.ownership import _remove_if_same, _unregister

from . import implementation


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
