"""Breaks: FBD-WRITE-1, CORD-WRITE-1

A raw output's ``write`` returning ``None`` (a non-blocking output that is full: it took nothing)
taken as having taken everything, as from a buffered output: the blob or the Cord is written
short, and the call returns as if it were whole.
"""

from __future__ import annotations

import io
from typing import Any

import reference
from conformance.api import Implementation
from reference.verified_reader import _os_file

from . import implementation
from ._proofs_c import written_to


class _NoneIsAll:
    """The output, with a ``write`` that reports ``None`` as every byte taken."""

    def __init__(self, outfile: Any) -> None:
        self._outfile = outfile

    def write(self, data: Any) -> int:
        taken = self._outfile.write(data)
        return len(memoryview(data)) if taken is None else int(taken)


def _lenient(outfile: Any) -> Any:
    if isinstance(outfile, io.RawIOBase) and _os_file(outfile) is None:
        return _NoneIsAll(outfile)
    return outfile


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        super().write_to_file(_lenient(outfile))


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        super().write_to_file(_lenient(outfile))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData, Cord=Cord)


class _FullAtFirst(io.RawIOBase):
    """A raw non-blocking output, full at its first write (``None``: it took nothing)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.full = True

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int | None:
        if self.full:
            self.full = False
            return None
        self.data += bytes(data)
        return len(memoryview(data))


def scenario(impl: Implementation) -> str | None:
    return written_to(impl, 100, _FullAtFirst())
