"""Breaks: FBD-MOVE-11

``move_from`` that puts a moved file back by path, with ``os.replace``, as the reference once did:
once the rename has freed the source's name, whatever another process puts there is replaced (a
file) or makes the put-back fail (a directory), and then the object the caller never got keeps
its finalizer, which unlinks the placeholder, the only copy of the data, at the next collection.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from reference.placeholders import _Move
from tests.blind._support import directory, make_file, read_file

from . import implementation
from ._proofs_b import after_rename, eio, raised


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _put_back(move: _Move) -> None:
        os.replace(move.placeholder, move.source)

    def _move_back(self, move: _Move) -> None:
        os.replace(self._path, move.source)
        self._disown()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _taken(rename: tuple[Any, ...]) -> None:
    make_file(rename[0], b"another's file")  # another process takes the name the rename freed


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        source = make_file(os.path.join(tmp, "weights.bin"), b"the only copy")
        with after_rename(("lstat", "stat", "fstat"), eio, _taken):
            error = raised(lambda: impl.FileBackedData.move_from(source).close())
        there = read_file(source)
        names = os.listdir(tmp)
        kept = [n for n in names if read_file(os.path.join(tmp, n)) == b"the only copy"]
    if there != b"another's file" or not kept:
        return f"the put-back after {error!r} replaced the file that took the source's name"
    return None
