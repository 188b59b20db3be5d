"""Breaks: HOOK-LOW-4

A handed-on digest trusted while the blob is the same inode with the same size: a blob rewritten
in place with other bytes of the same length between ``materialize`` and ``load`` keeps the digest
of what was written first.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._base import LowMemory, LowMemoryBackend, handed_digest_if
from ._proofs_b import load_after_rewrite, restamped


class Backend(LowMemoryBackend):
    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        return handed_digest_if(
            blob_path, lambda st, stamp: (st.st_dev, st.st_ino, st.st_size) == stamp[:3]
        )


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    return load_after_rewrite(
        impl,
        lambda path, st: restamped(path, b"WEIGHTS AS WRITTEN", st.st_mtime_ns + 10**9),
        "rewritten to its size and stamped a second later",
    )
