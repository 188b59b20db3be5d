"""Breaks: FBD-INIT-1
Profile: core
Bug: ``len()`` asks the filesystem for the file's size each time (``os.path.getsize``) instead of
returning the size recorded at construction, so a file that grew changes the blob's length, and
with it every layout computed from it.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def __len__(self) -> int:
        self._check_open()
        return os.path.getsize(self._path)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"0123456789") as (path, blob):
        with open(path, "ab") as f:
            f.write(b"more")
        if len(blob) != 10:
            return f"len() of a 10-byte blob whose file grew is {len(blob)}"
        return None
