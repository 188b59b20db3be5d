"""Breaks: FBD-CLOSE-3

A context manager that releases the file only when the block ends normally: a block left by an
exception keeps the owned file.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        if exc_type is None:
            self.close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
