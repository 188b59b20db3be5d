"""Breaks: FBD-MOVE-5

``move_from`` that renames through ``posix.replace`` (out of reach of a hook on ``os.replace``) and
takes a failed rename for one that happened: the placeholder it then finds is the empty one, and
putting it "back" onto the source's path replaces the user's file with an empty one. Only a fault
below Python (a system call failed in a child under strace) reaches that rename.
"""

from __future__ import annotations

import contextlib
import posix

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _take(source: str, placeholder: str) -> None:
        with contextlib.suppress(OSError):  # "the rename cannot really fail here"
            posix.replace(source, placeholder)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
