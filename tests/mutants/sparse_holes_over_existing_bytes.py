"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` that seeks over a sparse blob's holes also when the output already has bytes
there (written over an existing file, or after seeking back): the old bytes stay where the blob has
zeros.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation
from ._sparse import sparse_copy


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if not sparse_copy(self, outfile, over_data=True):
            super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
