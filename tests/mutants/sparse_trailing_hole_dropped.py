"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` into a regular file that copies only a sparse blob's data and seeks over its
holes, but never extends the output over a trailing hole: a blob that ends in a hole, written at
the end of the output, comes out short (its last bytes missing, not zeros).
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._proofs_c import sparse_written
from ._sparse import sparse_writer

IMPLEMENTATION = implementation(__name__, FileBackedData=sparse_writer(extend=False))


def scenario(impl: Implementation) -> str | None:
    return sparse_written(impl, b"", "wb", 0)
