"""Breaks: FBD-READ-4
Profile: strict
Bug: the file is opened without ``O_NOFOLLOW``, relying on the ``fstat`` identity check after the
open; a symbolic link put at the file's name that leads to the very same file is read through.
"""

from __future__ import annotations

import errno
import os
import stat

import reference
from conformance.api import Implementation
from reference.location import FileChangedError, Identity, Location
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._support import directory, make_file

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # no O_NOFOLLOW


class FollowingLocation(Location):
    def open_in(self, directory: int, identity: Identity) -> tuple[int, os.stat_result]:
        fd = os.open(self.name, _FLAGS, dir_fd=directory)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != identity[:2]:
            os.close(fd)
            raise FileChangedError(errno.ESTALE, "the file was replaced", self.path)
        return fd, st


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _VerifiedReader(FollowingLocation(*self._location), self._identity, self._size)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"weights")
        blob = impl.FileBackedData(path)
        elsewhere = os.path.join(tmp, "moved")
        os.rename(path, elsewhere)
        os.symlink(elsewhere, path)
        try:
            data = blob.to_bytes()
        except OSError:
            return None
        return f"to_bytes() read {data!r} through a symbolic link put at the file's name"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
