"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` whose sparse copy starts at the blob's first data segment without moving the
output past a leading hole: the blob's data lands early and its end is missing.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._proofs_c import sparse_written
from ._sparse import sparse_writer

IMPLEMENTATION = implementation(__name__, FileBackedData=sparse_writer(collapse_leading=True))


def scenario(impl: Implementation) -> str | None:
    return sparse_written(impl, b"", "wb", 0)
