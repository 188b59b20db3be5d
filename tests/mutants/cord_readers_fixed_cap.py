"""Breaks: CORD-WRITE-1, FBD-IDENT-2

``Cord.write_to_file`` that holds up to 1024 of its pieces' files open whatever ``RLIMIT_NOFILE``
says: in a process allowed fewer descriptors, a Cord of many file pieces fails with ``EMFILE``.
"""

from __future__ import annotations

from . import implementation
from ._capped import CappedCord


class Cord(CappedCord):
    @staticmethod
    def _allowed() -> int:
        return 1024


IMPLEMENTATION = implementation(__name__, Cord=Cord)
