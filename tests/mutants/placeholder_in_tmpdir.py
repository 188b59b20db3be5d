"""Breaks: FBD-MOVE-2, FBD-MOVE-3

``move_from`` that makes its placeholder in the system temporary directory instead of the
source's own directory, so the rename crosses filesystems wherever ``/tmp`` is another one.
"""

from __future__ import annotations

import os
import tempfile
from unittest import mock

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_c import moved_path


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_dir(source: str) -> None:  # type: ignore[override]  # None: the broken choice
        return None  # mkstemp's default, the system temporary directory


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        for name in ("source", "system temporary"):
            os.mkdir(os.path.join(tmp, name))
        source = make_file(os.path.join(tmp, "source", "w"), b"weights")
        with mock.patch.object(tempfile, "tempdir", os.path.join(tmp, "system temporary")):
            moved = moved_path(impl, source)
        where = os.path.dirname(os.path.realpath(moved))
        if where != os.path.dirname(source):
            return f"move_from of {source} put the file in {where}, not beside the source"
        return None
