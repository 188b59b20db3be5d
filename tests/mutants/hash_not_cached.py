"""Breaks: FBD-HASH-2

``sha256()`` that computes the digest again on every call (a supplied digest is still kept).
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_b import known_digest_after_removal


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        supplied = self._sha256
        digest = super().sha256()
        self._sha256 = supplied
        return digest


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return known_digest_after_removal(impl, supplied=False)
