"""Breaks: FBD-INIT-2

``close()`` that deletes the file whether or not the object owns it: a ``cleanup=False`` wrapper
deletes the caller's file.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.ownership import _remove_if_same
from tests.blind._support import directory

from . import implementation
from ._proofs_a import blob


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        if not self.closed and not self.owned:
            _remove_if_same(self._location, self._identity)
        super().close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        borrowed = blob(impl, tmp, "w", b"weights")
        borrowed.close()
        if not os.path.exists(os.path.join(tmp, "w")):
            return "close() of a cleanup=False blob deleted the caller's file"
        return None
