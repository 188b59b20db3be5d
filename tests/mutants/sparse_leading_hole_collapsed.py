"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` whose sparse copy starts at the blob's first data segment without moving the
output past a leading hole: the blob's data lands early and its end is missing.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation
from ._sparse import sparse_copy


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if not sparse_copy(self, outfile, collapse_leading=True):
            super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
