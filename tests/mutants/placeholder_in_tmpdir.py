"""Breaks: FBD-MOVE-2, FBD-MOVE-3

``move_from`` that makes its placeholder in the system temporary directory instead of the
source's own directory, so the rename crosses filesystems wherever ``/tmp`` is another one.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_dir(source: str) -> None:  # type: ignore[override]  # None: the broken choice
        return None  # mkstemp's default, the system temporary directory


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
