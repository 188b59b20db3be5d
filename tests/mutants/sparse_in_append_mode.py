"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` that seeks over a sparse blob's holes in an append-mode output too, where every
write goes to the end whatever the position: the holes vanish and the data after each hole moves
up.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._proofs_c import sparse_written
from ._sparse import sparse_writer

IMPLEMENTATION = implementation(__name__, FileBackedData=sparse_writer(in_append=True))


def scenario(impl: Implementation) -> str | None:
    return sparse_written(impl, b"header" * 100, "ab", 600)
