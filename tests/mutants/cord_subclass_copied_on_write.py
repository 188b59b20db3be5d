"""Breaks: CORD-TYPE-1

A piece of a subclass of ``bytes`` is held by identity, but written as ``bytes(piece)``: a copy as
large as the piece at every write, and through the subclass's own ``__bytes__`` if it has one.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_a import written_over


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        plain = reference.Cord()
        for piece in self.pieces:
            plain.append(bytes(piece) if isinstance(piece, bytes) else piece)
        reference.Cord.write_to_file(plain, outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


class _OwnBytes(bytes):
    """A ``bytes`` subclass whose ``__bytes__`` says something else than its contents."""

    def __bytes__(self) -> bytes:
        return b"not its contents"


def scenario(impl: Implementation) -> str | None:
    """A piece of a subclass of ``bytes`` is written as the bytes it holds, not converted."""
    got = written_over(impl.Cord(_OwnBytes(b"abc")), b"", 0)
    if got != b"abc":
        return f"a Cord of a bytes subclass holding b'abc' was written as {got!r}"
    return None
