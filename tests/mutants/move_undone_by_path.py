"""Breaks: FBD-MOVE-11

``move_from`` that puts a moved file back by path, with ``os.replace``, as the reference once did:
once the rename has freed the source's name, whatever another process puts there is replaced (a
file) or makes the put-back fail (a directory), and then the object the caller never got keeps
its finalizer, which unlinks the placeholder, the only copy of the data, at the next collection.
"""

from __future__ import annotations

import os

import reference
from reference.placeholders import _Move

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _put_back(move: _Move) -> None:
        os.replace(move.placeholder, move.source)

    def _move_back(self, move: _Move) -> None:
        os.replace(self._path, move.source)
        self._disown()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
