"""Breaks: FBD-MOVE-4

``move_from`` that cleans up after ``except Exception`` rather than any ``BaseException``, as
ExecuTorch 1.5.1 does: a ``KeyboardInterrupt`` (or ``SystemExit``) while the source is renamed
leaves the placeholder behind.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from reference.file_backed import _check_digest, _check_path, _owner_of, _require_regular

from . import implementation
from ._base import StepwiseMove


class FileBackedData(StepwiseMove):
    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        source = _check_path(path)
        digest = _check_digest(sha256)
        st = os.lstat(source)
        _require_regular(source, st)
        identity = (st.st_dev, st.st_ino)
        if _owner_of(identity) is not None:
            raise ValueError(f"cannot move {source!r}: it is owned")
        placeholder = cls._placeholder(source)
        try:
            cls._take(source, placeholder)
        except Exception:
            cls._undo(source, placeholder, identity)
            raise
        result = cls.__new__(cls)
        result._init(placeholder, os.lstat(placeholder), digest, owner=True)
        return result


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
