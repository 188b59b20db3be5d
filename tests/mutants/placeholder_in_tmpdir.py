"""Breaks: FBD-MOVE-2, FBD-MOVE-3

``move_from`` that makes its placeholder in the system temporary directory instead of the
source's own directory, so the rename crosses filesystems wherever ``/tmp`` is another one.
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
            prefix=f"{PLACEHOLDER_PREFIX}{os.getpid()}_", suffix=PLACEHOLDER_SUFFIX
        )
        os.close(fd)
        return placeholder


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
