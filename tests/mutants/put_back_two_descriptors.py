"""Breaks: FBD-MOVE-11

``move_from`` whose put-back opens the placeholder's directory and the source's directory apart,
even when they are one, and gives up its reserve descriptor for neither, as the reference once
did: a process with one descriptor free (or none) when an interrupt undoes a move fails the
put-back with ``EMFILE`` and leaves the data at the placeholder, which a sweep deletes once the
process is gone.
"""

from __future__ import annotations

import reference
from reference.placeholders import _keep, _Move
from reference.renames import rename_noreplace

from . import implementation


def _put_back(move: _Move) -> None:
    where = move.where
    assert where is not None
    with where.opened_directory() as held, move.home.opened_directory() as home:
        try:
            rename_noreplace(held, where.name, home, move.home.name)
        except OSError:
            if _keep(held, where, home, move.home) is None:
                raise


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _put_back(move: _Move) -> None:
        _put_back(move)

    def _move_back(self, move: _Move) -> None:
        try:
            _put_back(move)
        finally:
            self._disown()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
