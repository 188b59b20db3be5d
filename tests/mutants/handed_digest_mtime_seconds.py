"""Breaks: HOOK-LOW-4

A handed-on digest trusted while the blob has the inode, the size and the modification time *in
whole seconds* of the file hashed: a blob rewritten in place, to its size, within the second of
its last write is loaded with the digest of what was written first.
"""

from __future__ import annotations

import os

from conformance.api import Implementation

from . import implementation
from ._base import LowMemory, LowMemoryBackend, handed_digest_if
from ._proofs_b import load_after_rewrite, restamped


class Backend(LowMemoryBackend):
    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        return handed_digest_if(blob_path, _same_to_the_second)


def _same_to_the_second(st: os.stat_result, stamp: tuple[int, int, int, int]) -> bool:
    dev, ino, size, mtime_ns = stamp
    return (st.st_dev, st.st_ino, st.st_size, int(st.st_mtime)) == (
        dev,
        ino,
        size,
        mtime_ns // 10**9,
    )


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def _within_its_second(path: str, st: os.stat_result) -> None:
    second, fraction = divmod(st.st_mtime_ns, 10**9)
    later = 500_000_000 if fraction != 500_000_000 else 400_000_000
    restamped(path, b"WEIGHTS AS WRITTEN", second * 10**9 + later)


def scenario(impl: Implementation) -> str | None:
    return load_after_rewrite(
        impl, _within_its_second, "rewritten to its size, stamped within the same second"
    )
