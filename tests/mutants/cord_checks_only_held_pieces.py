"""Breaks: CORD-WRITE-3

``Cord.write_to_file`` that checks only the file pieces it holds a descriptor for (the first 1024,
or an eighth of ``RLIMIT_NOFILE``) before the first byte: a closed or changed piece past them is
found only when it is reached, after the pieces before it are written.
"""

from __future__ import annotations

from reference.file_backed import FileBackedData

from . import implementation
from ._capped import CappedCord


class Cord(CappedCord):
    @staticmethod
    def _past_the_cap(piece: FileBackedData) -> None:
        pass


IMPLEMENTATION = implementation(__name__, Cord=Cord)
