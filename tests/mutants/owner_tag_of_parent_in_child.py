"""Breaks: FBD-MOVE-10

The owner tag computed once, when the module is imported: a child made by ``fork`` names its
placeholders with its parent's pid and start time, so a sweep after the parent's end takes the
child's live placeholder for an orphan.
"""

from __future__ import annotations

import os
import tempfile

from reference.file_backed import PLACEHOLDER_PREFIX, PLACEHOLDER_SUFFIX, _owner_tag

from . import implementation
from ._base import StepwiseMove

_TAG = _owner_tag()


class FileBackedData(StepwiseMove):
    @staticmethod
    def _placeholder(source: str) -> str:
        fd, placeholder = tempfile.mkstemp(
            prefix=f"{PLACEHOLDER_PREFIX}{_TAG}_",
            suffix=PLACEHOLDER_SUFFIX,
            dir=os.path.dirname(source) or os.curdir,
        )
        os.close(fd)
        return placeholder


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
