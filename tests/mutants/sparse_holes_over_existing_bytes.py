"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` that seeks over a sparse blob's holes also when the output already has bytes
there (written over an existing file, or after seeking back): the old bytes stay where the blob has
zeros.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._proofs_c import sparse_written
from ._sparse import sparse_writer

IMPLEMENTATION = implementation(__name__, FileBackedData=sparse_writer(over_data=True))


def scenario(impl: Implementation) -> str | None:
    return sparse_written(impl, b"\1" * (1 << 20), "r+b", 0)
