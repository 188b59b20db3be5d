"""Breaks: FBD-MOVE-5

``move_from`` that handles a failure *after* the rename (the placeholder no longer being the
source's inode, or taking ownership failing) by removing the placeholder, as it does after a failed
rename, though the placeholder now holds the source's data: the user's file is lost.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.file_backed import _unlink_quietly
from reference.placeholders import _Move

from . import implementation
from ._proofs_b import after_rename, eio, move_under


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _put_back(move: _Move) -> None:
        _unlink_quietly(move.placeholder)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return move_under(impl, after_rename(("lstat", "stat", "fstat"), eio), OSError)
