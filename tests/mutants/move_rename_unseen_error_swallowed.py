"""Breaks: FBD-FAULT-1

``move_from`` that renames through ``posix.replace`` (out of reach of a hook on ``os.replace``) and
takes a failed rename for one that happened: the placeholder it then finds is the empty one, which
no longer matches the source, and the move fails with the put-back's error instead of the rename's
(``EIO`` lost). Putting that empty file "back" would replace the user's file, which the reference's
put-back refuses (it never replaces). Only a fault below Python (a system call failed in a child
under strace) reaches that rename.
"""

from __future__ import annotations

import contextlib
import posix

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_b import eio, move_under, on_call


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _take(source: str, placeholder: str) -> None:
        with contextlib.suppress(OSError):  # "the rename cannot really fail here"
            posix.replace(source, placeholder)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return move_under(impl, on_call(("replace", "rename"), eio), OSError)
