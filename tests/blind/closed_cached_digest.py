"""Breaks: FBD-CLOSED-1
Profile: strict
Bug: ``sha256()`` returns a known digest before asking whether the object is closed, so after
``close()`` a cached or supplied digest is still answered.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        if self._sha256 is not None:
            return self._sha256  # known: no need to look at anything
        return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(tmp + "/w", b"weights"))
        blob.sha256()
        blob.close()
        try:
            blob.sha256()
        except ValueError:
            return None
        return "sha256() of a closed object returned its cached digest"
