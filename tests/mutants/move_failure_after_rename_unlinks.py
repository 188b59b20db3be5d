"""Breaks: FBD-MOVE-5

``move_from`` that handles a failure *after* the rename (the placeholder no longer being the
source's inode, or taking ownership failing) by removing the placeholder, as it does after a failed
rename, though the placeholder now holds the source's data: the user's file is lost.
"""

from __future__ import annotations

import errno
import os
import tempfile
from typing import Any

import reference
from reference.file_backed import (
    PLACEHOLDER_PREFIX,
    PLACEHOLDER_SUFFIX,
    FileChangedError,
    _check_digest,
    _check_path,
    _identity_of,
    _owner_of,
    _owner_tag,
    _require_regular,
    _unlink_quietly,
)

from . import implementation


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        source = _check_path(path)
        digest = _check_digest(sha256)
        st = os.lstat(source)
        _require_regular(source, st)
        identity = (st.st_dev, st.st_ino)
        owner = _owner_of(identity)
        if owner is not None:
            raise ValueError(f"cannot move {source!r}: it is owned by {owner!r}")
        fd, placeholder = tempfile.mkstemp(
            prefix=f"{PLACEHOLDER_PREFIX}{_owner_tag()}_",
            suffix=PLACEHOLDER_SUFFIX,
            dir=os.path.dirname(source) or os.curdir,
        )
        try:
            os.close(fd)
            os.replace(source, placeholder)
        except BaseException:
            if _identity_of(placeholder) == identity:
                os.replace(placeholder, source)
            else:
                _unlink_quietly(placeholder)
            raise
        try:
            moved = os.lstat(placeholder)
            if (moved.st_dev, moved.st_ino) != identity:
                raise FileChangedError(
                    errno.ESTALE, "the source was replaced while it was being moved", source
                )
            result = cls.__new__(cls)
            result._init(placeholder, moved, digest, owner=True)
        except BaseException:
            _unlink_quietly(placeholder)
            raise
        return result


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
