"""Breaks: FBD-INIT-5

A path of a ``str`` subclass split into its directory and name with ``os.path.split`` before it
is used, which asks the path's own methods (``rfind``, slicing): a path whose methods lie names
another file, or none.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_c import raised


def _absolute(path: Any) -> Any:
    if isinstance(path, str) and type(path) is not str:
        directory, name = os.path.split(path)
        return os.path.join(directory, name)
    return path


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: Any, cleanup: Any = False, sha256: Any = None) -> None:
        super().__init__(_absolute(path), cleanup, sha256)

    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        return super().move_from(_absolute(path), sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class _Lying(str):
    """A path whose ``rfind`` gives a wrong place."""

    __slots__ = ()

    def rfind(self, *args: Any) -> int:
        return len(self) - 3


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "weights"), b"weights")
        got: list[bytes] = []
        error = raised(lambda: got.append(impl.FileBackedData(_Lying(path)).to_bytes()))
        if error is not None or got != [b"weights"]:
            return f"a blob at a path of a str subclass read as {got} (raised {error!r})"
        return None
