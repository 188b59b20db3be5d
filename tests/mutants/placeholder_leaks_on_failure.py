"""Breaks: FBD-MOVE-4

``move_from`` that leaves its placeholder behind when the rename fails.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _undo(source: str, placeholder: str, identity: tuple[int, int]) -> None:
        pass


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
