"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` whose sparse copy writes each data segment right after the previous one,
forgetting to skip the hole between them: a blob with a hole in its middle comes out shifted.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation
from ._sparse import sparse_copy


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if not sparse_copy(self, outfile, collapse_middle=True):
            super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
