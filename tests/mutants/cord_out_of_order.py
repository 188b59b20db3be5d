"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` that writes the in-memory pieces first, joined in one write, and then the
file-backed ones: every piece is written, but not in order.
"""

from __future__ import annotations

from typing import Any

import reference
from reference.file_backed import write_all

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        write_all(outfile, memoryview(b"".join(p for p in self.pieces if isinstance(p, bytes))))
        for piece in self.pieces:
            if not isinstance(piece, bytes):
                piece.write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)
