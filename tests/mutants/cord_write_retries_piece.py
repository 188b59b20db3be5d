"""Breaks: FBD-FAULT-1, CORD-WRITE-1

``Cord.write_to_file`` that writes piece by piece and retries a piece once when its write raises an
``OSError``: a fault that passes is swallowed, and a piece whose write took effect before raising
is written twice.
"""

from __future__ import annotations

import errno
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        if not self.pieces or not hasattr(outfile, "write"):
            super().write_to_file(outfile)
            return
        for piece in self.pieces:
            if not isinstance(piece, bytes):
                piece.prefix(0)  # every piece checked before the first byte
        for piece in self.pieces:
            try:
                reference.Cord(piece).write_to_file(outfile)
            except OSError as exc:
                if isinstance(exc, reference.FileChangedError):
                    raise
                reference.Cord(piece).write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


class _FailsOnce:
    """An output whose first write takes its data and then raises ``EIO``."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> int:
        self.data += data
        if len(self.data) == len(data):
            raise OSError(errno.EIO, "the write took effect, then failed")
        return len(data)


def scenario(impl: Implementation) -> str | None:
    out = _FailsOnce()
    cord = impl.Cord(b"abc")
    cord.append(b"def")
    try:
        cord.write_to_file(out)
    except OSError:
        return None
    return f"a write that raised EIO was not reported; the output holds {bytes(out.data)!r}"
