"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` into an ``io.BytesIO`` that truncates the buffer after what it wrote (it
rebuilds the buffer as head plus Cord): writing over the middle of a buffer drops the bytes after
the written region.
"""

from __future__ import annotations

import io
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_a import written_over


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        super().write_to_file(outfile)
        if type(outfile) is io.BytesIO:
            outfile.truncate()


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    """Written over the middle of a buffer: what follows the written region stays."""
    got = written_over(impl.Cord(b"abc"), b"0123456789", 4)
    if got != b"0123abc789":
        return f"a Cord b'abc' written at position 4 of b'0123456789' gave {got!r}"
    return None
