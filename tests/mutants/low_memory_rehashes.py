"""Breaks: HOOK-LOW-2

Low-memory ``load_weights_blob`` that takes the blob over with ``move_from`` but drops the digest
handed on from ``materialize_weights_blob``, so the blob is read again to hash it.
"""

from __future__ import annotations

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Backend(LowMemoryBackend):
    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        return None


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
