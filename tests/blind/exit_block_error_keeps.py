"""Breaks: FBD-CLOSE-3
Profile: core
Bug: ``__exit__`` releases the blob only when the ``with`` block ends normally ("keep the data for
the post-mortem"): a block that raises leaves the owned file until garbage collection or exit.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None:
        if exc_type is None:
            self.close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"weights", cleanup=True) as (path, blob):
        try:
            with blob:
                raise RuntimeError("export failed")
        except RuntimeError:
            pass
        if os.path.exists(path):
            blob.close()
            return "a with block that raised left the owned file in place"
        return None
