"""Breaks: FBD-IDENT-1, FBD-CHANGE-1

The file's identity records its modification time as the float ``st_mtime`` (about a quarter of a
microsecond apart at today's dates), not ``st_mtime_ns``: a file rewritten in place to its size and
stamped a few nanoseconds after it was wrapped, or a new file that reuses its inode number, is
read as the blob.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference.location import identity_of
from reference.verified_reader import _VerifiedReader
from tests.blind._support import directory, make_file

from . import implementation
from ._base import Owners
from ._proofs_b import refused, restamped


class FileBackedData(Owners):
    def _recorded(self, st: os.stat_result) -> None:
        self._mtime = st.st_mtime

    def _open(self, directory: int | None = None) -> _VerifiedReader:
        identity = self._identity
        try:
            st = os.lstat(self._location.path)
        except OSError:
            pass
        else:  # the same file, judged by the float time
            if (st.st_dev, st.st_ino, st.st_mtime) == (*identity[:2], self._mtime):
                identity = identity_of(st)
        return _VerifiedReader(self._location, identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_SECOND = 1_700_000_000 * 10**9
"""A whole second, in ns: the float ``st_mtime`` of it and of 1 ns later are the same number."""


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"old weights")
        os.utime(path, ns=(_SECOND, _SECOND))
        blob = impl.FileBackedData(path)
        restamped(path, b"new weights", _SECOND + 1)  # rewritten to its size, stamped 1 ns later
        return refused(blob.to_bytes, OSError, "to_bytes() of a file rewritten 1 ns later")
