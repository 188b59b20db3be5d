"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``FileBackedData.write_to_file`` that sizes an ``io.BytesIO`` for the blob first by writing one
zero byte at position + length - 1: for an empty blob that byte lands one before the position (over
the byte before it, or a ``ValueError`` at position 0).
"""

from __future__ import annotations

import io
from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._proofs_a import blob, written_over


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if type(outfile) is io.BytesIO:
            start = outfile.tell()
            outfile.seek(start + len(self) - 1)
            outfile.write(b"\0")
            outfile.seek(start)
        super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        empty = blob(impl, tmp, "e", b"")
        for at in (2, 0):
            try:
                got = written_over(empty, b"0123456789", at)
            except ValueError as exc:
                return f"an empty blob written at position {at} raised {exc!r}"
            if got != b"0123456789":
                return f"an empty blob written at position {at} of b'0123456789' gave {got!r}"
        return None
