"""Breaks: FBD-MOVE-10

The owner tag computed once, when the module is imported: a child made by ``fork`` names its
placeholders with its parent's pid and start time, so a sweep after the parent's end takes the
child's live placeholder for an orphan.
"""

from __future__ import annotations

import reference
from reference.file_backed import PLACEHOLDER_PREFIX
from reference.placeholders import _owner_tag

from . import implementation

_TAG = _owner_tag()


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_prefix() -> str:
        return f"{PLACEHOLDER_PREFIX}{_TAG}_"


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
