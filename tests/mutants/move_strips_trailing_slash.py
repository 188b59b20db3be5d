"""Breaks: FBD-MOVE-8

``move_from`` that normalises its path with ``rstrip("/")``: ``"weights.bin/"``, which names no
file (``NotADirectoryError``), moves ``weights.bin``.
"""

from __future__ import annotations

import os
from typing import Any

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if isinstance(path, str) and len(path) > 1:
            path = path.rstrip("/")
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
