"""Breaks: FBD-INIT-5
Profile: strict
Bug: an ``os.PathLike`` is turned into a path with ``os.fsdecode(os.fspath(path))``, so one whose
``__fspath__`` returns ``bytes`` is accepted instead of refused with ``TypeError``.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import accepted, directory, make_file


def _decoded(path: object) -> object:
    return os.fsdecode(os.fspath(path)) if isinstance(path, os.PathLike) else path


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: object, cleanup: object = False, sha256: object = None) -> None:
        super().__init__(_decoded(path), cleanup, sha256)

    @classmethod
    def move_from(cls, path: object, sha256: object = None) -> reference.FileBackedData:
        return super().move_from(_decoded(path), sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class BytesPath:
    def __init__(self, path: bytes) -> None:
        self.path = path

    def __fspath__(self) -> bytes:
        return self.path


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"data")
        if accepted(lambda: impl.FileBackedData(BytesPath(os.fsencode(path))), TypeError):
            return "a PathLike giving bytes was accepted"
    return None


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
