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
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._steps import release_at_collection
from ._support import directory, make_file, read_file


def _remove_by_name(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


class FileBackedData(reference.FileBackedData):
    def _init(self, *args: Any, **kwargs: Any) -> None:
        super()._init(*args, **kwargs)
        release_at_collection(self, _remove_by_name, self._path)


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
