"""Breaks: NDS-DEDUP-8, NDS-DEDUP-4

A store that keeps no digests: each fingerprint match hashes the stored buffer again.
"""

from __future__ import annotations

import hashlib
from typing import Any

from conformance.api import Implementation
from reference.named_data import _digest

from . import implementation
from ._base import Store
from ._proofs_a import patched, store_of


class NamedDataStore(Store):
    def _buffer_digest(self, index: int) -> bytes:
        return _digest(self.buffers[index])


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    """Three equal ``bytes`` blobs: the first is hashed when the second matches it, and never
    again (NDS-DEDUP-8: the digest is kept with its buffer)."""
    first, second, third = (bytes(bytearray(b"w" * 64)) for _ in range(3))
    hashed: list[object] = []
    real = hashlib.sha256

    def sha256(*args: Any, **kwargs: Any) -> Any:
        hashed.extend(args[:1])
        return real(*args, **kwargs)

    with patched(hashlib, "sha256", sha256):
        store_of(impl, ("a", first), ("b", second), ("c", third))
    times = sum(1 for data in hashed if data is first)
    if times > 1:
        return f"the stored blob was hashed {times} times"
    return None
