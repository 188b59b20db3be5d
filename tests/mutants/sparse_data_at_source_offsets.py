"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` that copies a sparse blob's data segments to the offsets they have in the blob,
not offset by the output's position: right at the start of an output, wrong after a header.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._proofs_c import sparse_written
from ._sparse import sparse_writer

IMPLEMENTATION = implementation(__name__, FileBackedData=sparse_writer(absolute=True))


def scenario(impl: Implementation) -> str | None:
    return sparse_written(impl, b"header" * 100, "r+b", 600)
