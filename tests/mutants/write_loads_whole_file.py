"""Breaks: FBD-WRITE-2, FBD-WRITE-3

``FileBackedData.write_to_file`` that reads the whole file into memory and writes it at once: the
memory it holds grows with the file, and a sparse file's holes are written as zeros.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from reference.file_backed import check_writable, write_all
from tests.blind._support import directory, peak_memory

from . import implementation


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        check_writable(outfile)
        write_all(outfile, memoryview(self.to_bytes()))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = os.path.join(tmp, "w")
        with open(path, "wb") as f:
            f.write(b"weights")
            f.truncate(16 << 20)
        blob = impl.FileBackedData(path)
        with open(os.path.join(tmp, "out"), "wb") as out:
            held = peak_memory(lambda: blob.write_to_file(out))
        if held > 4 << 20:
            return f"write_to_file of a 16 MiB blob into a file held {held} bytes"
        return None
