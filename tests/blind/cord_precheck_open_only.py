"""Breaks: CORD-WRITE-3
Profile: strict
Bug: before the first byte, ``Cord.write_to_file`` checks only that each file piece is open, not
that its file is unchanged; a piece whose file grew is found when it is reached, after the pieces
before it were written.
"""

from __future__ import annotations

import io

import reference
from conformance.api import Implementation
from reference.cord import _write_pieces
from reference.file_backed import check_writable

from . import implementation
from ._support import wrapped


class Cord(reference.Cord):
    def write_to_file(self, outfile: object) -> None:
        check_writable(outfile)
        for piece in self._buffers:
            if isinstance(piece, reference.FileBackedData):
                piece._check_open()  # open, but whether it changed is not asked
        _write_pieces(outfile, self._buffers, {})


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"0123456789") as (path, blob):
        cord = impl.Cord(b"header")
        cord.append(blob)
        with open(path, "ab") as f:
            f.write(b"grown")
        out = io.BytesIO()
        try:
            cord.write_to_file(out)
        except OSError:
            if out.getvalue():
                return f"it raised for the grown piece after writing {out.getvalue()!r}"
            return None
        return f"a Cord with a grown file piece was written: {out.getvalue()!r}"
