"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` that appends to an ``io.BytesIO`` at its end, not at its position (a fast
path that builds on ``getvalue()``): right after ``BytesIO()`` and writes, wrong when the caller
seeked back to fill in a segment. ``FileBackedData.write_to_file`` itself is right.
"""

from __future__ import annotations

import io
from typing import Any

import reference

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        if type(outfile) is io.BytesIO:
            outfile.seek(0, io.SEEK_END)
        super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)
