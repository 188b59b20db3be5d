"""Breaks: CORD-WRITE-2
Profile: core
Bug: ``Cord.write_to_file`` writes a file-backed piece with ``outfile.write(piece.to_bytes())``,
the simple port of "write each piece": the whole file is held in memory while it is written.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, peak_memory


class Cord(reference.Cord):
    def write_to_file(self, outfile: reference.file_backed.Writable) -> None:
        reference.file_backed.check_writable(outfile)
        for piece in self.pieces:
            if isinstance(piece, reference.FileBackedData):
                piece._check_open()
                outfile.write(piece.to_bytes())  # the whole file at once
            else:
                outfile.write(piece)


IMPLEMENTATION = implementation(__name__, Cord=Cord)
_SIZE = 16 << 20


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = os.path.join(tmp, "w")
        with open(path, "wb") as f:
            f.truncate(_SIZE)
            f.write(b"x" * 4096)
        blob = impl.FileBackedData(path)
        cord = impl.Cord(b"head")
        cord.append(blob)
        with open(os.path.join(tmp, "out"), "wb") as out:
            peak = peak_memory(lambda: cord.write_to_file(out))
        if os.path.getsize(os.path.join(tmp, "out")) != 4 + _SIZE:
            return "the output does not have the Cord's length"
    if peak > _SIZE // 2:
        return f"writing a Cord with a {_SIZE >> 20} MiB file piece held {peak >> 20} MiB"
    return None
