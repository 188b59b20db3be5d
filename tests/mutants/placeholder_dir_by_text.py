"""Breaks: FBD-MOVE-2

``move_from`` that finds the source's directory by the text of its path (``os.path.abspath``,
which drops ``name/..`` without asking the OS): for a path through a linked directory and ``..``
the placeholder is made in another directory than the source's, and the source is renamed there.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._base import Owners
from ._proofs_c import moved_path


class FileBackedData(Owners):
    @staticmethod
    def _placeholder_dir(source: str) -> str:
        return os.path.dirname(os.path.abspath(source))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        os.makedirs(os.path.join(tmp, "a", "b"))
        os.symlink(os.path.join("a", "b"), os.path.join(tmp, "link"))
        make_file(os.path.join(tmp, "a", "w"), b"weights")
        moved = moved_path(impl, os.path.join(tmp, "link", "..", "w"))  # link/.. is a/
        where = os.path.dirname(os.path.realpath(moved))
        if where != os.path.join(tmp, "a"):
            return f"move_from of link/../w (in {tmp}/a) put the file in {where}"
        return None
