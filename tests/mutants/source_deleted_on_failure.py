"""Breaks: FBD-MOVE-5

``move_from`` whose clean-up after a failed rename removes both paths, the placeholder and the
source, so a failed hand-over loses the user's file.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.file_backed import _unlink_quietly
from reference.placeholders import _Move

from . import implementation
from ._proofs_c import move_that_fails


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _undo(cls, move: _Move) -> None:
        for path in (move.placeholder, move.source):
            _unlink_quietly(path)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return move_that_fails(impl)
