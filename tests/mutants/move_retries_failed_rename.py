"""Breaks: FBD-FAULT-1

``move_from`` that retries a rename onto the placeholder once when it raises ("a transient error"):
a fault that passes is swallowed, and after a rename that took effect and then raised, the retry's
``FileNotFoundError`` replaces the error the OS gave.
"""

from __future__ import annotations

import os
from typing import Any

import reference

from . import implementation
from ._oswrap import Call, wrapping


def _is_take(dst: Any) -> bool:
    return os.path.basename(os.fspath(dst)).startswith(".executorch_")


def _wrap(real: Call) -> Call:
    def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_take(dst):
            return real(src, dst, *args, **kwargs)
        try:
            return real(src, dst, *args, **kwargs)
        except OSError:
            return real(src, dst, *args, **kwargs)

    return replace


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: Any, sha256: bytes | None = None) -> reference.FileBackedData:
        with wrapping("replace", _wrap):
            return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
