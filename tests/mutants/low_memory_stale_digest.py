"""Breaks: HOOK-LOW-4

Low-memory ``load_weights_blob`` that trusts the digest handed on from ``materialize_weights_blob``
even when the blob was changed or replaced in between.
"""

from __future__ import annotations

from reference import hooks

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Backend(LowMemoryBackend):
    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        return blob_path.sha256 if isinstance(blob_path, hooks.WeightsBlobPath) else None


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
