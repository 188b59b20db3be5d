"""Breaks: FBD-CLOSE-1

``close()`` that marks the object closed but leaves the owned file on disk, for the garbage
collector's finalizer to remove some time later, if ever.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._proofs_a import owned


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        self._closed = True


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        owner, path = owned(impl, tmp)
        owner.close()
        if os.path.exists(path):
            return f"close() of an owner left its file {path}"
        return None
