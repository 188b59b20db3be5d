"""Breaks: FBD-MOVE-6, FBD-MOVE-1

``move_from`` that copies the source onto the placeholder and deletes the source, instead of
renaming it: the data is read and written in full, and the owned file is another inode. Apart from
that it is a careful move: the owner records its copy and checks it as the reference
does, and a failed copy leaves the source where it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import reference
from conformance.api import Implementation
from reference.file_backed import PLACEHOLDER_SUFFIX
from reference.location import locate
from reference.placeholders import _Move
from tests.blind._support import directory, make_file

from . import implementation


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _move_held(cls, move: _Move, digest: bytes | None) -> reference.FileBackedData:
        source = move.source
        fd, placeholder = tempfile.mkstemp(
            prefix=cls._placeholder_prefix(),
            suffix=PLACEHOLDER_SUFFIX,
            dir=cls._placeholder_dir(source),
        )
        try:
            with os.fdopen(fd, "wb") as copy, open(source, "rb") as original:
                shutil.copyfileobj(original, copy)
        except BaseException:
            os.unlink(placeholder)
            raise
        os.remove(source)
        move.placeholder, move.where = placeholder, locate(placeholder, False)
        result = cls.__new__(cls)
        result._init(placeholder, os.lstat(placeholder), digest, True, move.where)
        return result


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        source = make_file(os.path.join(tmp, "w"), b"weights")
        inode = os.stat(source).st_ino
        owner = impl.FileBackedData.move_from(source)
        moved = os.stat(impl.path_of(owner)).st_ino
        owner.close()
    return None if moved == inode else "move_from's owner holds another inode: a copy, no rename"
