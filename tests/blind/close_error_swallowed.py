"""Breaks: FBD-CLOSE-7
Profile: strict
Bug: ``close()`` swallows an ``OSError`` of the removal (as ExecuTorch does) and marks the object
closed: a file in a directory that refuses the unlink is leaked silently, never retried at exit.
"""

from __future__ import annotations

import errno
from unittest import mock

import reference
from conformance.api import Implementation
from reference.ownership import _unregister

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def _close(self) -> None:
        try:
            super()._close()
        except OSError:
            if self._finalizer is not None:
                self._finalizer.detach()
            _unregister(self._identity)
            self._closed = True


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    with wrapped(impl, b"weights", cleanup=True) as (_, blob):
        with mock.patch("os.unlink", refused), mock.patch("os.remove", refused):
            try:
                blob.close()
            except OSError:
                pass
            else:
                return "close() returned normally although the removal was refused"
        if getattr(blob, "closed", False):
            return "a close() whose removal failed left the object closed"
        blob.close()
        return None
