"""Breaks: FBD-INIT-5
Profile: strict
Bug: ``move_from`` checks ``isinstance(path, str)`` where the constructor takes any
``os.PathLike[str]``, so ``move_from(pathlib.Path(...))`` raises ``TypeError``.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import file_backed

from . import implementation


class FileBackedData(file_backed.FileBackedData):
    @classmethod
    def move_from(
        cls, path: str | os.PathLike[str], sha256: bytes | None = None
    ) -> file_backed.FileBackedData:
        if not isinstance(path, str):
            raise TypeError(f"path must be str, not {type(path).__name__}")
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    import pathlib

    from ._support import directory, make_file

    with directory() as d:
        source = make_file(os.path.join(d, "w"), b"abc")
        try:
            blob = impl.FileBackedData.move_from(pathlib.Path(source))
        except TypeError as exc:
            return f"move_from refused a pathlib.Path: {exc}"
        try:
            gone = not os.path.exists(source)
            data = blob.to_bytes()
        finally:
            blob.close()
    if not gone or data != b"abc":
        return "move_from(pathlib.Path) did not take the file over"
    return None
