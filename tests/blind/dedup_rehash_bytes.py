"""Breaks: NDS-DEDUP-8
Profile: strict
Bug: when a new ``bytes`` blob's fingerprint matches one stored buffer and the digests differ, the
digest computed for the comparison is dropped, and the blob is hashed again when it is placed.
"""

from __future__ import annotations

import hashlib
from unittest import mock

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _equal_to_lone(self, data: object, lone: int) -> tuple[bool, bytes | None]:
        equal, _ = super()._equal_to_lone(data, lone)
        return equal, None


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    head = b"x" * 32
    blobs = [head + bytes([i]) * 1000 for i in range(3)]
    hashed: list[int] = []
    real = hashlib.sha256

    def counting(data: bytes = b"", **kwargs: object) -> object:
        hashed.extend(i for i, b in enumerate(blobs) if data is b)
        return real(data, **kwargs)

    store = impl.NamedDataStore()
    with mock.patch("hashlib.sha256", counting):
        for i, blob in enumerate(blobs):
            store.add_named_data(f"k{i}", blob)
    twice = sorted({i for i in hashed if hashed.count(i) > 1})
    if twice:
        return f"bytes blobs {twice} were hashed more than once ({hashed})"
    return None
