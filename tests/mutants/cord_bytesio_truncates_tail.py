"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` into an ``io.BytesIO`` that truncates the buffer after what it wrote (it
rebuilds the buffer as head plus Cord): writing over the middle of a buffer drops the bytes after
the written region.
"""

from __future__ import annotations

import io
from typing import Any

import reference

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        super().write_to_file(outfile)
        if type(outfile) is io.BytesIO:
            outfile.truncate()


IMPLEMENTATION = implementation(__name__, Cord=Cord)
