"""Breaks: FBD-WRITE-1, CORD-WRITE-1

The hole probe (``os.lseek`` with ``SEEK_DATA``) taken to say "cannot tell" only when it fails with
``EINVAL``: on a filesystem that answers ``EOPNOTSUPP`` the write of a blob into a file fails with
that error, where FBD-WRITE-3 says to write the zeros.
"""

from __future__ import annotations

import errno
import os

import reference
from reference.verified_reader import _VerifiedReader

from . import implementation


class _Reader(_VerifiedReader):
    def send_sparse(self, fd: int) -> None:
        source = self._file.fileno()
        at = self._size - self.remaining
        try:
            os.lseek(source, at, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno not in (errno.ENXIO, errno.EINVAL):
                raise
        os.lseek(source, at, os.SEEK_SET)
        super().send_sparse(fd)


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _Reader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
