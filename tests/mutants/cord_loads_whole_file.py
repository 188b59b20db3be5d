"""Breaks: CORD-WRITE-2, FBD-WRITE-3

``Cord.write_to_file`` that reads each file-backed piece whole (``to_bytes()``), all of them before
the first write, and writes them: the memory it holds grows with the pieces, and a sparse piece's
holes are written as zeros.
"""

from __future__ import annotations

from typing import Any

import reference
from reference.file_backed import check_writable, write_all

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        check_writable(outfile)
        whole = [piece if isinstance(piece, bytes) else piece.to_bytes() for piece in self.pieces]
        for piece in whole:
            write_all(outfile, memoryview(piece))


IMPLEMENTATION = implementation(__name__, Cord=Cord)
