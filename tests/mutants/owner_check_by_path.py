"""Breaks: FBD-MOVE-9

Owners registered by resolved path instead of by inode: ``move_from`` or ``cleanup=True`` of the
owned path itself is refused, but of a hard link to the owned file it is not, and two objects then
delete one file.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

import reference
from reference import file_backed

from . import implementation

_BY_PATH: dict[str, weakref.ref[reference.FileBackedData]] = {}


def _owned(path: str) -> bool:
    ref = _BY_PATH.get(os.path.realpath(path))
    owner = ref() if ref is not None else None
    return owner is not None and not owner.closed


class FileBackedData(reference.FileBackedData):
    def _init(
        self, path: str, st: os.stat_result, digest: bytes | None, owner: bool, fd: int = -1
    ) -> None:
        super()._init(path, st, digest, owner=False, fd=fd)
        if owner:
            if _owned(path):
                raise ValueError(f"{path!r} is already owned")
            _BY_PATH[os.path.realpath(path)] = weakref.ref(self)
            self._owner = True
            self._finalizer.detach()
            self._finalizer = weakref.finalize(
                self, file_backed._release, path, self._identity, self._pid, os.close, self._fd
            )

    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        source = file_backed._check_path(path)
        if _owned(source):
            raise ValueError(f"cannot move {source!r}: it is owned")
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
