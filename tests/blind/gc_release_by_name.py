"""Breaks: FBD-CLOSE-8
Profile: strict
Bug: ``close()`` checks the file's identity before removing it, but the finalizer (garbage
collection and exit) removes the path by name: another file put at the owned file's path since is
deleted when the owner is collected.
"""

from __future__ import annotations

import contextlib
import gc
import os
import weakref
from typing import Any

import reference
from conformance.api import Implementation
from reference.location import Identity
from reference.ownership import _unregister

from . import implementation
from ._support import directory, make_file, read_file


def _remove_by_name(path: str, pid: int, identity: Identity) -> None:
    try:
        if os.getpid() == pid:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    finally:
        _unregister(identity)


class FileBackedData(reference.FileBackedData):
    def _init(self, *args: Any, **kwargs: Any) -> None:
        super()._init(*args, **kwargs)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = weakref.finalize(
                self, _remove_by_name, self._path, self._pid, self._identity
            )
            self._finalizer.atexit = False


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"owned")
        blob = impl.FileBackedData(path, cleanup=True)
        other = make_file(os.path.join(tmp, "other"), b"someone else's")
        os.replace(other, path)
        del blob
        gc.collect()
        if not os.path.exists(path) or read_file(path) != b"someone else's":
            return "collecting an owner deleted another file put at its path"
    return None


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
