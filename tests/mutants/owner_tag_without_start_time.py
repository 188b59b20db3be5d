"""Breaks: FBD-MOVE-10

Placeholders named ``.executorch_<pid>_<random>.data`` even where the system tells the process's
start time: once the pid is reused, a sweep takes a dead owner's orphan for a live one's file.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.file_backed import PLACEHOLDER_PREFIX
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_c import moved_path, tag_problem


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_prefix() -> str:
        return f"{PLACEHOLDER_PREFIX}{os.getpid()}_"


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        return tag_problem(moved_path(impl, make_file(os.path.join(tmp, "w"), b"weights")))
