"""Breaks: CORD-WRITE-3

``Cord.write_to_file`` that checks only the file pieces it holds a descriptor for (the first 1024,
or an eighth of ``RLIMIT_NOFILE``) before the first byte: a closed or changed piece past them is
found only when it is reached, after the pieces before it are written.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference.file_backed import FileBackedData

from . import implementation
from ._capped import CappedCord
from ._proofs_a import cord_under_descriptor_limit


class Cord(CappedCord):
    @staticmethod
    def _past_the_cap(piece: FileBackedData) -> None:
        pass


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    """Allowed 64 descriptors, a write may hold 8 readers: the closed 12th piece is past them."""
    did = cord_under_descriptor_limit(impl, soft=64, files=12, close_last=True)
    if did.startswith("raised") and did.endswith(" 0 bytes"):
        return None
    return f"a Cord whose 12th file piece is closed, written with 64 descriptors allowed, {did}"
