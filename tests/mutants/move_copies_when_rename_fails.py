"""Breaks: FBD-MOVE-6, FBD-FAULT-1

``move_from`` that falls back to copying the source onto the placeholder and removing the source
when the rename raises (as for a cross-device rename): the owned file is a copy (another inode),
and the rename's error is never seen.
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
            import shutil

            shutil.copyfile(src, dst)
            os.unlink(src)
            return None

    return replace


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: Any, sha256: bytes | None = None) -> reference.FileBackedData:
        with wrapping("replace", _wrap):
            return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
