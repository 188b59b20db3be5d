"""Breaks: FBD-MOVE-2, FBD-MOVE-3

``move_from`` that passes ``dir=os.path.dirname(path) or None`` to ``mkstemp``: right for a path
with a directory, but for a bare name (a file in the current directory) the placeholder goes to the
system temporary directory, so the rename crosses filesystems wherever that is another one.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_dir(source: str) -> str | None:  # type: ignore[override]  # None: the broken choice
        return os.path.dirname(source) or None


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            moved = impl.FileBackedData.move_from(make_file("w", b"weights"))
        finally:
            os.chdir(cwd)
        where = os.path.dirname(impl.path_of(moved))
        moved.close()
        if where != tmp:
            return f"move_from of a bare name put the file in {where}, not in its directory {tmp}"
        return None
