"""Breaks: FBD-IDENT-1
Profile: strict
Bug: ``close()`` decides that the path still names the owned file by ``(st_dev, st_ino)`` alone,
so an owned file that someone rewrote in place since (a new ``st_mtime_ns``: no longer the owned
file) is deleted.
"""

from __future__ import annotations

import contextlib
import os

from conformance.api import Implementation

from . import implementation
from ._steps import ReleasingOnClose
from ._support import wrapped


class FileBackedData(ReleasingOnClose):
    def _release(self) -> None:
        if os.getpid() == self._pid:
            with contextlib.suppress(FileNotFoundError):
                st = os.lstat(self._path)
                if (st.st_dev, st.st_ino) == self._identity[:2]:
                    os.unlink(self._path)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"weights", cleanup=True) as (path, blob):
        st = os.stat(path)
        with open(path, "r+b") as f:
            f.write(b"WEIGHTS")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        blob.close()
        if not os.path.exists(path):
            return "close() deleted an owned file that was rewritten in place since"
        return None
