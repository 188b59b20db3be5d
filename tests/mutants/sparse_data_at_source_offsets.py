"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` that copies a sparse blob's data segments to the offsets they have in the blob,
not offset by the output's position: right at the start of an output, wrong after a header.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation
from ._sparse import sparse_copy


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if not sparse_copy(self, outfile, absolute=True):
            super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
