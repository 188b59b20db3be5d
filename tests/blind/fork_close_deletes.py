"""Breaks: FBD-FORK-1
Profile: strict
Bug: the process check (only the owning pid deletes) is in the finalizer but not in ``close()``: a
forked worker that closes an inherited object deletes its parent's file.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference.ownership import _remove_if_same

from . import implementation
from ._steps import ReleasingOnClose
from ._support import wrapped


class FileBackedData(ReleasingOnClose):
    def _release(self) -> None:
        _remove_if_same(self._location, self._identity)  # whichever process this is


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"weights", cleanup=True) as (path, blob):
        pid = os.fork()
        if pid == 0:
            try:
                blob.close()
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        present = os.path.exists(path)
        blob.close()
        if not present:
            return "a forked child's close() deleted its parent's owned file"
        return None
