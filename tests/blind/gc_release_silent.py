"""Breaks: FBD-CLOSE-7
Profile: strict
Bug: the release at garbage collection suppresses every ``OSError`` ("never raise in a
finalizer") without the ``RuntimeWarning`` naming the path, so a file that could not be removed
is leaked silently.
"""

from __future__ import annotations

import errno
import gc
import os
import warnings
import weakref
from typing import Any

import reference
from conformance.api import Implementation
from reference.location import Identity, Location
from reference.ownership import _unregister

from . import implementation
from ._support import directory, make_file


def _quiet_release(location: Location, identity: Identity, pid: int) -> None:
    try:
        if os.getpid() == pid:
            location.remove_if(identity)
    except OSError:
        pass  # a finalizer must not raise
    finally:
        _unregister(identity)


class FileBackedData(reference.FileBackedData):
    def _init(self, *args: Any, **kwargs: Any) -> None:
        super()._init(*args, **kwargs)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = weakref.finalize(
                self, _quiet_release, self._location, self._identity, self._pid
            )
            self._finalizer.atexit = False


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _refuse(*args: object, **kwargs: object) -> None:
    raise PermissionError(errno.EACCES, "Permission denied")


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"abc")
        blob = impl.FileBackedData(path, cleanup=True)
        unlink = os.unlink
        os.unlink = _refuse
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                del blob
                gc.collect()
        finally:
            os.unlink = unlink
        named = [
            w for w in caught if issubclass(w.category, RuntimeWarning) and path in str(w.message)
        ]
        if not named:
            return (
                "a removal that failed at garbage collection gave no RuntimeWarning naming the path"
            )
    return None


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
