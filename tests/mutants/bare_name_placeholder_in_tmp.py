"""Breaks: FBD-MOVE-2, FBD-MOVE-3

``move_from`` that passes ``dir=os.path.dirname(path) or None`` to ``mkstemp``: right for a path
with a directory, but for a bare name (a file in the current directory) the placeholder goes to the
system temporary directory, so the rename crosses filesystems wherever that is another one.
"""

from __future__ import annotations

import os

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_dir(source: str) -> str | None:  # type: ignore[override]  # None: the broken choice
        return os.path.dirname(source) or None


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
