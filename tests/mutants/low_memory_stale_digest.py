"""Breaks: HOOK-LOW-4

Low-memory ``load_weights_blob`` that trusts the digest handed on from ``materialize_weights_blob``
even when the blob was changed or replaced in between.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import make_file

from . import implementation
from ._base import LowMemory, LowMemoryBackend
from ._proofs_b import load_after_rewrite


class Backend(LowMemoryBackend):
    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        return blob_path.sha256 if isinstance(blob_path, hooks.WeightsBlobPath) else None


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def _replaced(path: str, st: os.stat_result) -> None:
    os.replace(make_file(f"{path}.new", b"other weights, and more of them"), path)


def scenario(impl: Implementation) -> str | None:
    return load_after_rewrite(impl, _replaced, "replaced by another file")
