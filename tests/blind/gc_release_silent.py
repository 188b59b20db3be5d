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
from typing import Any

import reference
from conformance.api import Implementation
from reference.location import Identity, Location

from . import implementation
from ._steps import release_at_collection
from ._support import wrapped


def _quiet_remove(location: Location, identity: Identity) -> None:
    try:
        location.remove_if(identity)
    except OSError:
        return  # a finalizer must not raise: the failure is dropped, with no warning


class FileBackedData(reference.FileBackedData):
    def _init(self, *args: Any, **kwargs: Any) -> None:
        super()._init(*args, **kwargs)
        release_at_collection(self, _quiet_remove, self._location, self._identity)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _refuse(*args: object, **kwargs: object) -> None:
    raise PermissionError(errno.EACCES, "Permission denied")


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"abc", cleanup=True) as (path, blob):
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
