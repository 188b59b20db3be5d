"""Breaks: FBD-CHANGE-1

The reader compares the file's size and ``st_mtime_ns`` before and after a read, not its
``st_ctime_ns``: a writer that rewrites the file in place to its size and then sets its
modification time back with ``utime`` is not seen, and the read gives the rewritten bytes.
"""

from __future__ import annotations

import os

import reference
from reference.verified_reader import _VerifiedReader

from . import implementation


class _MtimeOnlyReader(_VerifiedReader):
    @staticmethod
    def _stamp(st: os.stat_result) -> tuple[int, ...]:
        return st.st_size, st.st_mtime_ns


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _MtimeOnlyReader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
