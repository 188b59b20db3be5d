"""Breaks: FBD-CHANGE-1

The reader checks at the end of a read only that the file still has its recorded size (as the
reference once did): a file truncated and regrown to its size while it is read is
written, hashed or returned with the zeros it holds from there on, and no error.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.verified_reader import _VerifiedReader

from . import implementation
from ._proofs_a import changed_while_written


class _SizeOnlyReader(_VerifiedReader):
    @staticmethod
    def _stamp(st: os.stat_result) -> tuple[int, ...]:
        return (st.st_size,)


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _SizeOnlyReader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _truncated_and_regrown(path: str) -> None:
    size = os.path.getsize(path)
    os.truncate(path, 0)
    os.truncate(path, size)


def scenario(impl: Implementation) -> str | None:
    """Truncated and regrown to its size: zeros where its data was, the size unchanged."""
    return changed_while_written(impl, _truncated_and_regrown)
