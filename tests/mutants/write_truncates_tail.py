"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``FileBackedData.write_to_file`` into a file from ``open()`` that truncates the output after the
blob (as a copy that sets the file's size to where it ended): writing a blob over existing bytes
drops the bytes after it.
"""

from __future__ import annotations

import io
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import to_real_file


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        super().write_to_file(outfile)
        if isinstance(outfile, (io.FileIO, io.BufferedWriter, io.BufferedRandom)):
            outfile.truncate()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    got = to_real_file(impl, b"blob", b"x" * 100, 0, "r+b")
    if got != b"blob" + b"x" * 96:
        return f"a 4-byte blob written at the start of a 100-byte file left {len(got)} bytes"
    return None
