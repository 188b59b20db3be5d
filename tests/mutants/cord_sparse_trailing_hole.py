"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` into a regular file that copies its last file-backed piece sparsely (seeking
over holes) and never extends the output over that piece's trailing hole: a Cord that ends with a
sparse piece ending in a hole comes out short. ``FileBackedData.write_to_file`` itself is right.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._sparse import sparse_copy


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        pieces = self.pieces
        if not pieces or isinstance(pieces[-1], bytes):
            super().write_to_file(outfile)
            return
        for piece in pieces:
            if not isinstance(piece, bytes):
                piece.prefix(0)  # every piece checked before the first byte
        head = reference.Cord()
        for piece in pieces[:-1]:
            head.append(piece)
        head.write_to_file(outfile)
        if not sparse_copy(pieces[-1], outfile, extend=False):
            pieces[-1].write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


_SIZE = 1 << 16


def scenario(impl: Implementation) -> str | None:
    """A Cord ending with a file that ends in a hole, written into a file: the output has the
    hole's length too."""
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"data")
        os.truncate(path, _SIZE)
        cord = impl.Cord(b"head")
        cord.append(impl.FileBackedData(path))
        target = os.path.join(tmp, "out")
        with open(target, "wb") as out:
            cord.write_to_file(out)
        size = os.path.getsize(target)
        if size != 4 + _SIZE:
            return f"a Cord of {4 + _SIZE} bytes ending in a hole was written as {size} bytes"
        return None
