"""Breaks: FBD-CHANGE-1

The reader compares the file's size and ``st_mtime_ns`` before and after a read, not its
``st_ctime_ns``: a writer that rewrites the file in place to its size and then sets its
modification time back with ``utime`` is not seen, and the read gives the rewritten bytes.
"""

from __future__ import annotations

import os
import time

import reference
from conformance.api import Implementation
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._proofs_a import changed_while_written


class _MtimeOnlyReader(_VerifiedReader):
    @staticmethod
    def _stamp(st: os.stat_result) -> tuple[int, ...]:
        return st.st_size, st.st_mtime_ns


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _MtimeOnlyReader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _rewrite_keeping_times(path: str) -> None:
    st = os.stat(path)
    with open(path, "r+b") as f:
        f.write(b"b" * st.st_size)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    # where the kernel keeps a coarse st_ctime, the change must land on a later tick than the
    # wrap for any reader to see it: the time set back again (st_ctime to now) until it does
    deadline = time.monotonic() + 1
    while os.stat(path).st_ctime_ns == st.st_ctime_ns and time.monotonic() < deadline:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def scenario(impl: Implementation) -> str | None:
    """Rewritten in place to its size, its modification time set back: ``st_ctime`` shows it."""
    return changed_while_written(impl, _rewrite_keeping_times)
