"""Breaks: FBD-CHANGE-1

The reader checks at the end of a read only that the file still has its recorded size (as the
reference once did): a file truncated and regrown to its size while it is read is
written, hashed or returned with the zeros it holds from there on, and no error.
"""

from __future__ import annotations

import os

import reference
from reference.verified_reader import _VerifiedReader

from . import implementation


class _SizeOnlyReader(_VerifiedReader):
    @staticmethod
    def _stamp(st: os.stat_result) -> tuple[int, ...]:
        return (st.st_size,)


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _SizeOnlyReader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
