"""Breaks: FBD-CLOSE-6
Profile: core
Bug: ``close()`` first checks that the owned file is still its own with an ``os.lstat`` of the
path that is not guarded, so an owned file someone else already removed makes ``close()`` raise
``FileNotFoundError``.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def _close(self) -> None:
        if self._owner and not self._closed and os.getpid() == self._pid:
            os.lstat(self._path)  # "is it still ours?"
        super()._close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"abc", cleanup=True) as (path, blob):
        os.remove(path)
        try:
            blob.close()
        except OSError as exc:
            return f"close() of an owner whose file is already gone raised {exc!r}"
    return None
