"""Breaks: FBD-CHANGE-1, FBD-IDENT-1
Profile: strict
Bug: the file's identity is checked with the float ``st_mtime``, not ``st_mtime_ns``: a file
rewritten in place and stamped 1 ns after the recorded time has the same float time (about
240 ns apart today), so it is read as the blob.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from reference.location import identity_of
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._support import directory, make_file, read_as_blob

_T = 1_700_000_000 * 10**9


class FileBackedData(reference.FileBackedData):
    def _init(self, *args: Any, **kwargs: Any) -> None:
        super()._init(*args, **kwargs)
        self._mtime = args[1].st_mtime  # the stat the reference recorded, as a float

    def _open(self, directory: int | None = None) -> _VerifiedReader:
        identity = self._identity
        try:
            st = os.stat(self._path)
        except OSError:
            st = None
        if st is not None and (st.st_dev, st.st_ino) == identity[:2] and st.st_mtime == self._mtime:
            identity = identity_of(st)  # the same time, as a float: the same file
        return _VerifiedReader(self._location, identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"aaaa")
        os.utime(path, ns=(_T, _T))
        blob = impl.FileBackedData(path)
        with open(path, "r+b") as f:
            f.write(b"bbbb")
        os.utime(path, ns=(_T + 1, _T + 1))
        return read_as_blob(blob, "a file rewritten and stamped 1 ns later")
