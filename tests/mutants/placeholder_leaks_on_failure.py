"""Breaks: FBD-MOVE-4

``move_from`` that leaves its placeholder behind when the rename fails.
"""

from __future__ import annotations

import reference
from reference.placeholders import _Move

from . import implementation


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _undo(cls, move: _Move) -> None:
        pass


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
