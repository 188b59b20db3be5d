"""Breaks: FBD-MOVE-4

``move_from`` that leaves its placeholder behind when the rename fails.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.placeholders import _Move

from . import implementation
from ._proofs_c import move_that_fails


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _undo(cls, move: _Move) -> None:
        pass


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return move_that_fails(impl)
