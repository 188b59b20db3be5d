"""Breaks: FBD-MOVE-8
Profile: strict
Bug: ``move_from`` normalises its path with ``os.path.normpath`` first, which drops a trailing
slash: ``move_from("weights/")`` of a regular file moves it instead of raising
``NotADirectoryError``.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import accepted, directory, make_file


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: object, sha256: object = None) -> reference.FileBackedData:
        if isinstance(path, str) and path:
            path = os.path.normpath(path)
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        source = make_file(os.path.join(tmp, "weights"), b"weights")
        if accepted(lambda: impl.FileBackedData.move_from(source + "/"), OSError):
            return "move_from of 'weights/' (a regular file with a trailing slash) succeeded"
    return None
