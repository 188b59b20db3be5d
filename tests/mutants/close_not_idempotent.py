"""Breaks: FBD-CLOSE-2

A second ``close()`` of an owner removes its path again, and raises because it is gone.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._proofs_a import blob


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        if self.closed and self.owned:
            os.remove(self._path)
        super().close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        owner = blob(impl, tmp, "w", b"weights", cleanup=True)
        owner.close()
        try:
            owner.close()
        except OSError as exc:
            return f"a second close() of an owner raised {exc!r}"
        return None
