"""Breaks: HOOK-LOW-2, HOOK-BLOB-1

Low-memory weights as ExecuTorch 1.5.1's CUDA backend hands them on: ``materialize_weights_blob``
leaves the blob empty (the weights would live in files of its own), so the digest handed on is of
another file and ``load_weights_blob`` opens the blob again to hash it, reading 0 bytes: only an
observer of the open, not of the bytes read, sees the reread.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import directory, read_file

from . import implementation
from ._base import BlobWritten, LowMemory
from ._proofs_b import materialized


class Backend(BlobWritten):
    @staticmethod
    def _written(path: hooks.WeightsBlobPath) -> hooks.WeightsBlobPath:
        os.truncate(path, 0)  # its digest is then of another file: load drops it
        return path


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        written = read_file(materialized(impl, tmp, b"weights"))
    return None if written == b"weights" else f"materialize wrote {written!r}, not the weights"
