"""Breaks: FBD-MOVE-2, FBD-MOVE-3

``move_from`` that passes ``dir=os.path.dirname(path) or None`` to ``mkstemp``: right for a path
with a directory, but for a bare name (a file in the current directory) the placeholder goes to the
system temporary directory, so the rename crosses filesystems wherever that is another one.
"""

from __future__ import annotations

import os
import tempfile

from reference.file_backed import PLACEHOLDER_PREFIX, PLACEHOLDER_SUFFIX, _owner_tag

from . import implementation
from ._base import StepwiseMove


class FileBackedData(StepwiseMove):
    @staticmethod
    def _placeholder(source: str) -> str:
        fd, placeholder = tempfile.mkstemp(
            prefix=f"{PLACEHOLDER_PREFIX}{_owner_tag()}_",
            suffix=PLACEHOLDER_SUFFIX,
            dir=os.path.dirname(source) or None,
        )
        os.close(fd)
        return placeholder


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
