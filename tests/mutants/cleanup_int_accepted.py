"""Breaks: FBD-INIT-6

``cleanup`` checked with ``cleanup not in (True, False)``: ``1``, ``0`` and ``1.0`` compare equal to
a bool and are accepted as ownership flags.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: Any, cleanup: Any = False, sha256: Any = None) -> None:
        if cleanup not in (True, False):
            raise TypeError(f"cleanup must be bool, not {type(cleanup).__name__}: {cleanup!r}")
        super().__init__(path, bool(cleanup), sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
