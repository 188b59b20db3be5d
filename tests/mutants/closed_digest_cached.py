"""Breaks: FBD-CLOSED-1

``sha256()`` that returns a cached or supplied digest before it checks whether the object is
closed: everything else raises after ``close()``, a digest that is known still answers.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from tests.blind._support import directory, sha

from . import implementation
from ._proofs_a import blob


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        if self._sha256 is not None:
            return self._sha256
        return super().sha256()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        closed = blob(impl, tmp, "w", b"weights", sha256=sha(b"weights"))
        closed.close()
        try:
            digest = closed.sha256()
        except ValueError:
            return None
        return f"sha256() of a closed blob answered {digest.hex()[:16]}... instead of raising"
