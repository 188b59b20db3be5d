"""Breaks: FBD-INIT-7
Profile: strict
Bug: the owning constructor resolves a symbolic link to the file it leads to ("deleting the link
would not release the data"), instead of refusing it: the object then owns, and its release
deletes, a file the caller only named through a link.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import linked


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: str, cleanup: bool = False, sha256: bytes | None = None) -> None:
        if cleanup is True and isinstance(path, str) and os.path.islink(path):
            path = os.path.realpath(path)  # own the data, not the link
        super().__init__(path, cleanup, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with linked(b"weights") as (target, link):
        try:
            blob = impl.FileBackedData(link, cleanup=True)
        except ValueError:
            return None if os.path.exists(target) else "the refused link's target is gone"
        blob.close()
        gone = "deleted" if not os.path.exists(target) else "kept"
        return f"FileBackedData(link, cleanup=True) was accepted; its close() {gone} the target"
