"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``FileBackedData.write_to_file`` that sizes an ``io.BytesIO`` for the blob first by writing one
zero byte at position + length - 1: for an empty blob that byte lands one before the position (over
the byte before it, or a ``ValueError`` at position 0).
"""

from __future__ import annotations

import io
from typing import Any

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if type(outfile) is io.BytesIO:
            start = outfile.tell()
            outfile.seek(start + len(self) - 1)
            outfile.write(b"\0")
            outfile.seek(start)
        super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
