"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``FileBackedData.write_to_file`` whose ``io.BytesIO`` fast path grows the buffer from its end, not
from its current position: right when the position is at the end (as after ``BytesIO()`` and
writes), wrong when the caller seeked back to fill in a segment.
"""

from __future__ import annotations

import io
from typing import Any

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if type(outfile) is io.BytesIO:
            outfile.seek(0, io.SEEK_END)
        super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
