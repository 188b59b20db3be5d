"""Breaks: CORD-WRITE-3

``Cord.write_to_file`` that checks only the first file-backed piece before writing, and finds a
closed or changed later one only when it reaches it, after the pieces before it are written.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from reference.cord import _write_pieces

from . import implementation
from ._proofs_a import spoiled_cord_written


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        files = [p for p in self.pieces if isinstance(p, reference.FileBackedData)]
        if files:
            files[0]._verify()
        _write_pieces(outfile, self._buffers, {})  # each file piece by its own write_to_file


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    return spoiled_cord_written(impl, into_file=False)
