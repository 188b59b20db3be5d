"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` that writes the in-memory pieces first, joined in one write, and then the
file-backed ones: every piece is written, but not in order.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from reference.file_backed import write_all
from tests.blind._support import directory

from . import implementation
from ._proofs_a import blob, written_over


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        write_all(outfile, memoryview(b"".join(p for p in self.pieces if isinstance(p, bytes))))
        for piece in self.pieces:
            if not isinstance(piece, bytes):
                piece.write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        cord = impl.Cord(b"a")
        cord.append(blob(impl, tmp, "b", b"b"))
        cord.append(b"c")
        got = written_over(cord, b"", 0)
        if got != b"abc":
            return f"a Cord of b'a', a file of b'b' and b'c' was written as {got!r}"
        return None
