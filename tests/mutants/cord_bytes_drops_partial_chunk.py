"""Breaks: CORD-BYTES-1

``bytes(cord)`` that reads each file piece in whole chunks of 1 MiB (``size // chunk`` of them) and
forgets the remainder when the piece holds more than one chunk: a file piece over 1 MiB that is not
a multiple of it comes out short. Every ``FileBackedData`` method is right.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._proofs_a import CHUNK, blob

_CHUNK = 1 << 20


class Cord(reference.Cord):
    def __bytes__(self) -> bytes:
        out = []
        for piece in self.pieces:
            if isinstance(piece, bytes) or len(piece) <= _CHUNK:
                out.append(piece if isinstance(piece, bytes) else piece.to_bytes())
                continue
            piece.prefix(0)
            with open(piece.path, "rb") as f:
                out.extend(f.read(_CHUNK) for _ in range(len(piece) // _CHUNK))
        return b"".join(out)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        data = b"w" * CHUNK + b"tail"
        got = bytes(impl.Cord(blob(impl, tmp, "w", data)))
        if got != data:
            return f"bytes() of a Cord of a {len(data)}-byte file gave {len(got)} bytes"
        return None
