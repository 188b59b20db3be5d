"""Breaks: FBD-INIT-5
Profile: strict
Bug: the constructor and ``move_from`` first ask ``os.path.exists(path)`` and raise
``FileNotFoundError`` when it says no; it says no for every ``OSError``, so a name too long for the
filesystem is reported as missing instead of ``ENAMETOOLONG``.
"""

from __future__ import annotations

import errno
import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory


def _must_exist(path: object) -> None:
    if isinstance(path, (str, os.PathLike)) and not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such file", os.fspath(path))


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: object, cleanup: object = False, sha256: object = None) -> None:
        _must_exist(path)
        super().__init__(path, cleanup, sha256)

    @classmethod
    def move_from(cls, path: object, sha256: object = None) -> reference.FileBackedData:
        _must_exist(path)
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = os.path.join(tmp, "x" * 300)
        for what, make in (
            ("constructor", impl.FileBackedData),
            ("move_from", impl.FileBackedData.move_from),
        ):
            try:
                make(path)
            except OSError as exc:
                if exc.errno != errno.ENAMETOOLONG:
                    return f"the {what} of a 300-character name raised {exc!r}, not ENAMETOOLONG"
            else:
                return f"the {what} of a 300-character name succeeded"
    return None
