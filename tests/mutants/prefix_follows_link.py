"""Breaks: FBD-READ-4

``prefix`` opens the blob's path by name, following a symbolic link, then checks with ``fstat``
that it opened the recorded file: a link put at the name that leads to the blob's own file (moved
aside) passes the check and is read through. The other reads open without following.
"""

from __future__ import annotations

import errno
import os
import stat

import reference
from conformance.api import Implementation
from reference.location import FileChangedError

from . import implementation
from ._proofs_c import blob_in, reads_refused


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if type(size) is not int or size < 0:
            return super().prefix(size)
        self._check_open()
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != self._identity[:2]:
                raise FileChangedError(errno.ESTALE, "the file was replaced", self.path)
            if (st.st_mtime_ns, st.st_size) == (self._identity[2], self._size):
                return os.pread(fd, min(size, self._size), 0)
        finally:
            os.close(fd)
        return super().prefix(size)  # changed in place: the reference's check says how


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with blob_in(impl) as (tmp, path, blob):
        os.rename(path, os.path.join(tmp, "aside"))
        os.symlink(os.path.join(tmp, "aside"), path)
        return reads_refused(blob, "whose name is now a symbolic link to its file, moved aside")
