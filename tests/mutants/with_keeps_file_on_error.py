"""Breaks: FBD-CLOSE-3

A context manager that releases the file only when the block ends normally: a block left by an
exception keeps the owned file.
"""

from __future__ import annotations

import contextlib
import os

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import blob_in


class FileBackedData(reference.FileBackedData):
    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        if exc_type is None:
            self.close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with blob_in(impl, cleanup=True) as (_, path, blob):
        with contextlib.suppress(LookupError), blob:
            raise LookupError("the block failed")
        if os.path.exists(path):
            return "a with block left by an exception kept its owned file"
        return None
