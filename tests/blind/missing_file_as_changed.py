"""Breaks: FBD-FAULT-2
Profile: core
Bug: every read first checks the path exists and reports a missing file as a changed one
(``FileChangedError``, ``ESTALE``), where a removed file must be ``FileNotFoundError``.
"""

from __future__ import annotations

import errno
import os

import reference
from conformance.api import Implementation
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        if not os.path.exists(self._path):
            raise reference.FileChangedError(
                errno.ESTALE, "the file changed after it was wrapped", self._path
            )
        return super()._open(directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"abc") as (path, blob):
        os.remove(path)
        try:
            blob.prefix(2)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"prefix() of a removed file raised {exc!r}, not FileNotFoundError"
    return "prefix() of a removed file did not raise"
