"""Breaks: FBD-INIT-6
Profile: strict
Bug: ``cleanup`` is coerced with ``bool(cleanup)`` instead of checked, so ``cleanup="no"`` (a
truthy string from a config file) silently makes the object own, and later delete, the file.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: object, cleanup: object = False, sha256: object = None) -> None:
        super().__init__(path, bool(cleanup), sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"keep me")
        for value in ("no", 1, None):
            try:
                blob = impl.FileBackedData(path, cleanup=value)
            except TypeError:
                continue
            blob.close()
            return f"cleanup={value!r} was accepted (file still there: {os.path.exists(path)})"
    return None
