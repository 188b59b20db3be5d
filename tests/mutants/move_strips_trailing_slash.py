"""Breaks: FBD-MOVE-8

``move_from`` that normalises its path with ``rstrip("/")``: ``"weights.bin/"``, which names no
file (``NotADirectoryError``), moves ``weights.bin``.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_b import raised


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if isinstance(path, str) and len(path) > 1:
            path = path.rstrip("/")
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "weights.bin"), b"weights")
        error = raised(lambda: impl.FileBackedData.move_from(f"{path}/").close())
        left = sorted(os.listdir(tmp))
    if not isinstance(error, OSError) or left != ["weights.bin"]:
        return f"move_from('weights.bin/') gave {error!r} and left {left}"
    return None
