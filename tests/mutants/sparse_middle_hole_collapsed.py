"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``write_to_file`` whose sparse copy writes each data segment right after the previous one,
forgetting to skip the hole between them: a blob with a hole in its middle comes out shifted.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._proofs_c import sparse_written
from ._sparse import sparse_writer

IMPLEMENTATION = implementation(__name__, FileBackedData=sparse_writer(collapse_middle=True))


def scenario(impl: Implementation) -> str | None:
    return sparse_written(impl, b"", "wb", 0)
