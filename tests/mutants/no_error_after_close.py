"""Breaks: FBD-CLOSED-1

No closed state: after ``close()``, ``len()`` and a cached ``sha256()`` still answer and reads go
to whatever is at the path now (``FileNotFoundError``, or another file's data).
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def _check_open(self) -> None:
        pass


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
