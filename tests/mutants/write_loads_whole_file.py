"""Breaks: FBD-WRITE-2, FBD-WRITE-3

``FileBackedData.write_to_file`` that reads the whole file into memory and writes it at once: the
memory it holds grows with the file, and a sparse file's holes are written as zeros.
"""

from __future__ import annotations

from typing import Any

import reference
from reference.file_backed import check_writable, write_all

from . import implementation


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        check_writable(outfile)
        write_all(outfile, memoryview(self.to_bytes()))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
