"""Breaks: FBD-READ-4
Profile: strict
Bug: the file is opened without ``O_NOFOLLOW``, relying on the ``fstat`` identity check after the
open; a symbolic link put at the file's name that leads to the very same file is read through.
"""

from __future__ import annotations

import os

from conformance.api import Implementation

from . import implementation
from ._steps import OpeningWith
from ._support import read_as_blob, wrapped


class FileBackedData(OpeningWith):
    open_flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # no O_NOFOLLOW


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"weights") as (path, blob):
        elsewhere = os.path.join(os.path.dirname(path), "moved")
        os.rename(path, elsewhere)
        os.symlink(elsewhere, path)
        return read_as_blob(blob, "a symbolic link put at the file's name, to the file")
