"""Breaks: FBD-MOVE-10

Placeholders named ``.executorch_<pid>_<random>.data`` even where the system tells the process's
start time: once the pid is reused, a sweep takes a dead owner's orphan for a live one's file.
"""

from __future__ import annotations

import os

import reference
from reference.file_backed import PLACEHOLDER_PREFIX

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_prefix() -> str:
        return f"{PLACEHOLDER_PREFIX}{os.getpid()}_"


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
