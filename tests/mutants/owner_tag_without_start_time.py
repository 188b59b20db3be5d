"""Breaks: FBD-MOVE-10

Placeholders named ``.executorch_<pid>_<random>.data`` even where the system tells the process's
start time: once the pid is reused, a sweep takes a dead owner's orphan for a live one's file.
"""

from __future__ import annotations

import os
import tempfile

from reference.file_backed import PLACEHOLDER_PREFIX, PLACEHOLDER_SUFFIX

from . import implementation
from ._base import StepwiseMove


class FileBackedData(StepwiseMove):
    @staticmethod
    def _placeholder(source: str) -> str:
        fd, placeholder = tempfile.mkstemp(
            prefix=f"{PLACEHOLDER_PREFIX}{os.getpid()}_",
            suffix=PLACEHOLDER_SUFFIX,
            dir=os.path.dirname(source) or os.curdir,
        )
        os.close(fd)
        return placeholder


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
