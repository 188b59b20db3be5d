"""Breaks: FBD-INIT-8
Profile: strict
Bug: the constructor keeps the path as given and each read looks the file up again from it, so
after ``os.chdir`` a blob made from a relative path reads whatever that name means in the new
directory (or nothing).
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.location import locate
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    _given: str | None = None  # made by move_from: the placeholder's absolute path

    def __init__(self, path: object, cleanup: object = False, sha256: object = None) -> None:
        super().__init__(path, cleanup, sha256)
        self._given = os.fspath(path)

    def _open(self, directory: int | None = None) -> _VerifiedReader:
        # looked up from the path as given, relative to the directory of the moment
        given = self._path if self._given is None else self._given
        return _VerifiedReader(locate(given, False), self._identity, self._size)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    here = os.getcwd()
    with directory() as first, directory() as second:
        make_file(os.path.join(first, "w.bin"), b"the blob")
        try:
            os.chdir(first)
            blob = impl.FileBackedData("w.bin")
            os.chdir(second)
            try:
                data = blob.to_bytes()
            except OSError as exc:
                return f"after os.chdir the blob made from 'w.bin' cannot be read: {exc!r}"
        finally:
            os.chdir(here)
        if data != b"the blob":
            return f"after os.chdir it reads {data!r}"
        return None
