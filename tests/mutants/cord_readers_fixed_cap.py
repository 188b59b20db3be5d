"""Breaks: CORD-WRITE-1, FBD-IDENT-2

``Cord.write_to_file`` that holds up to 1024 of its pieces' files open whatever ``RLIMIT_NOFILE``
says: in a process allowed fewer descriptors, a Cord of many file pieces fails with ``EMFILE``.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._capped import CappedCord
from ._proofs_a import cord_under_descriptor_limit


class Cord(CappedCord):
    @staticmethod
    def _allowed() -> int:
        return 1024


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    """Allowed 64 descriptors: a Cord of 100 file pieces is written all the same."""
    did = cord_under_descriptor_limit(impl, soft=64, files=100, close_last=False)
    if did == f"wrote {4 + 100 * 5} bytes":
        return None
    return f"a Cord of 100 file pieces, written with 64 descriptors allowed, {did}"
