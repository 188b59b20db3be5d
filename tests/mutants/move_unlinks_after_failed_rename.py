"""Breaks: FBD-MOVE-5

``move_from`` that answers a rename onto the placeholder that raised by removing the placeholder,
taking "raised" for "did not happen": when the rename took effect and then reported an error (as a
network filesystem can), the placeholder holds the user's file, and removing it loses the data.
"""

from __future__ import annotations

import contextlib
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
            with contextlib.suppress(OSError):
                os.unlink(dst)  # "the rename failed, so the placeholder is still the empty one"
            raise

    return replace


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: Any, sha256: bytes | None = None) -> reference.FileBackedData:
        with wrapping("replace", _wrap):
            return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
