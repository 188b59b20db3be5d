"""Breaks: FBD-WRITE-2

``FileBackedData.write_to_file`` that reads the whole file into memory and writes it at once.
"""

from __future__ import annotations

from typing import Any

import reference
from reference.file_backed import write_all

from . import implementation


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        write_all(outfile, memoryview(self.to_bytes()))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
