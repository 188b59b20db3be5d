"""Breaks: FBD-INIT-6
Profile: strict
Bug: the supplied digest is checked as "bytes-like of 32 bytes", so a ``bytearray`` (mutable, and
not ``bytes``) is accepted as a digest, and ``sha256()`` returns it.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: str, cleanup: bool = False, sha256: object = None) -> None:
        if isinstance(sha256, (bytearray, memoryview)) and len(sha256) == 32:
            sha256 = bytes(sha256)  # bytes-like taken as bytes
        super().__init__(path, cleanup, sha256)  # type: ignore[arg-type]


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"abc")
        try:
            impl.FileBackedData(path, sha256=bytearray(32))
        except TypeError:
            return None
        return "a bytearray was accepted as the supplied sha256"
