"""Breaks: CORD-WRITE-2

``Cord.write_to_file`` that reads each file-backed piece whole (``to_bytes()``) and writes it.
"""

from __future__ import annotations

from typing import Any

import reference
from reference.file_backed import write_all

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        for piece in self.pieces:
            write_all(outfile, memoryview(piece if isinstance(piece, bytes) else piece.to_bytes()))


IMPLEMENTATION = implementation(__name__, Cord=Cord)
