"""Breaks: HOOK-LOW-4

A handed-on digest trusted while the blob is the same inode with the same size: a blob rewritten
in place with other bytes of the same length between ``materialize`` and ``load`` keeps the digest
of what was written first.
"""

from __future__ import annotations

import os

from reference import hooks

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Backend(LowMemoryBackend):
    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        if not isinstance(blob_path, hooks.WeightsBlobPath):
            return None
        try:
            st = os.stat(blob_path)
        except OSError:
            return None
        same = (st.st_dev, st.st_ino, st.st_size) == blob_path._stamp[:3]
        return blob_path.sha256 if same else None


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
