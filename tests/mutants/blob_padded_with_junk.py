"""Breaks: HOOK-BLOB-1

Low-memory ``materialize_weights_blob`` that pads the blob to a multiple of 64 bytes, as
AOTInductor aligns host-resident constants, but with 0xFF bytes instead of zeros (hashing them, so
the digest handed on is that of the file as written): only the blob's layout shows it.
"""

from __future__ import annotations

import hashlib

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import directory, read_file

from . import implementation
from ._base import BlobWritten, LowMemory
from ._proofs_a import materialized


class Backend(BlobWritten):
    @staticmethod
    def _written(path: hooks.WeightsBlobPath) -> hooks.WeightsBlobPath:
        with open(path, "ab") as f:
            f.write(b"\xff" * (-f.tell() % 64))
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).digest()
        return hooks.WeightsBlobPath(str(path), digest)


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        held = read_file(materialized(impl, tmp, [b"abc", b"defg"]))
        if held != b"abcdefg":
            return (
                f"the blob of weights b'abc' and b'defg' holds {len(held)} bytes: {held[:12]!r}..."
            )
        return None
