"""Breaks: FBD-INIT-5
Profile: strict
Bug: an ``os.PathLike`` is turned into a path with ``os.fsdecode(os.fspath(path))``, so one whose
``__fspath__`` returns ``bytes`` is accepted instead of refused with ``TypeError``.
"""

from __future__ import annotations

import os

from conformance.api import Implementation

from . import implementation
from ._steps import PathsThrough
from ._support import accepted, directory, make_file


class FileBackedData(PathsThrough):
    @staticmethod
    def _taken(path: object) -> object:
        return os.fsdecode(os.fspath(path)) if isinstance(path, os.PathLike) else path


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
