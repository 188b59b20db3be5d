"""Breaks: FBD-CLOSE-7
Profile: strict
Bug: ``close()`` marks the object closed before it removes the owned file, so when the removal
fails the error propagates but the object is already closed and a retry removes nothing.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import file_backed
from reference.ownership import _remove_if_same, _unregister

from . import implementation


class FileBackedData(file_backed.FileBackedData):
    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True  # first, so that a second call is a no-op whatever happens
            if self._owner and os.getpid() == self._pid:
                _remove_if_same(self._location, self._identity)
            if self._finalizer is not None:
                self._finalizer.detach()
            if self._owner:
                _unregister(self._identity)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    import errno
    from unittest import mock

    from ._support import wrapped

    with wrapped(impl, b"abc", cleanup=True) as (path, blob):
        failure = OSError(errno.EIO, "injected I/O error")
        with mock.patch.object(os, "unlink", side_effect=failure):
            try:
                blob.close()
            except OSError:
                pass
            else:
                blob.close()
                return "close() did not raise when the removal failed"
        if blob.closed:
            blob.close()
            return "a close() whose removal failed left the object closed"
        blob.close()
        if os.path.exists(path):
            return "close() retried after a failed removal left the owned file"
    return None
