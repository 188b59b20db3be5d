"""Breaks: CORD-WRITE-2, FBD-WRITE-3

``Cord.write_to_file`` that reads each file-backed piece whole (``to_bytes()``), all of them before
the first write, and writes them: the memory it holds grows with the pieces, and a sparse piece's
holes are written as zeros.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from reference.file_backed import check_writable, write_all
from tests.blind._support import directory, make_file, peak_memory

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        check_writable(outfile)
        whole = [piece if isinstance(piece, bytes) else piece.to_bytes() for piece in self.pieces]
        for piece in whole:
            write_all(outfile, memoryview(piece))


IMPLEMENTATION = implementation(__name__, Cord=Cord)


_SIZE = 8 << 20


def scenario(impl: Implementation) -> str | None:
    """A Cord of an 8 MiB file (sparse: quick to make) written into a file streams it through a
    bounded buffer, or none: the file is never held whole."""
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"head")
        os.truncate(path, _SIZE)
        cord = impl.Cord(impl.FileBackedData(path))
        with open(os.path.join(tmp, "out"), "wb") as out:
            held = peak_memory(lambda: cord.write_to_file(out))
        if held >= _SIZE // 2:
            return f"writing a Cord of an {_SIZE >> 20} MiB file held {held >> 20} MiB at once"
        return None
