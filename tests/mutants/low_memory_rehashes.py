"""Breaks: HOOK-LOW-2

Low-memory ``load_weights_blob`` that takes the blob over with ``move_from`` but drops the digest
handed on from ``materialize_weights_blob``, so the blob is read again to hash it.
"""

from __future__ import annotations

from conformance.api import Implementation
from tests.blind._support import directory, read_cost

from . import implementation
from ._base import LowMemory, LowMemoryBackend
from ._proofs_b import loaded_hex, materialized


class Backend(LowMemoryBackend):
    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        return None


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    size = 4 << 20
    with directory() as tmp:
        path = materialized(impl, tmp, bytes(size))
        cost = read_cost(lambda: loaded_hex(impl, path))
    if cost >= size:
        return f"a load handed materialize's digest read {cost} bytes of the {size}-byte blob"
    return None
