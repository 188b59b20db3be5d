"""Breaks: FBD-CLOSE-4
Profile: core
Bug: the owner's finalizer is ``weakref.finalize(self, self._release_file)``, a bound method, which
holds a strong reference to the object: the owner is never collected, so its file is not released
at garbage collection (only at exit).
"""

from __future__ import annotations

import gc
import os
import weakref
from typing import Any

import reference
from conformance.api import Implementation
from reference.ownership import _release

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def _init(self, *args: Any, **kwargs: Any) -> None:
        super()._init(*args, **kwargs)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, self._release_file)  # keeps self alive
            self._finalizer.atexit = False

    def _release_file(self) -> None:
        _release(self._location, self._identity, self._pid)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"abc", cleanup=True) as (path, blob):
        del blob
        gc.collect()
        if os.path.exists(path):
            return "an owner dropped and collected did not release its file"
    return None
