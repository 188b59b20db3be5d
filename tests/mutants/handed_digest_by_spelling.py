"""Breaks: HOOK-LOW-4

The digest handed from ``materialize_weights_blob`` to ``load_weights_blob`` through a module-level
map keyed by the blob's path as written, checked against the file and removed by the load that
names it the same way: a load that spells the path otherwise (``dir/./x``, relative or absolute)
leaves the entry for ever.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from reference import hooks

from . import implementation
from ._base import _LOW_MEMORY, LowMemory, LowMemoryBackend

_HANDED: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}


def _stamp(path: str) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


class Backend(LowMemoryBackend):
    @classmethod
    def materialize_weights_blob(cls, paths: Any, compile_specs: Sequence[Any]) -> Any:
        out = super().materialize_weights_blob(paths, compile_specs)
        if not isinstance(out, list):
            return out
        for p in out:
            if isinstance(p, hooks.WeightsBlobPath):
                _HANDED[str(p)] = (_stamp(p), p.sha256)
        return [str(p) if isinstance(p, hooks.WeightsBlobPath) else p for p in out]

    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        found = _HANDED.pop(str(blob_path), None)
        try:
            return found[1] if found and _stamp(blob_path) == found[0] else None
        except OSError:
            return None


class Weights(LowMemory):
    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        paths = self.backend.materialize_weights_blob([so_path, hooks.Weights(chunks)], _LOW_MEMORY)
        return next(p for p in paths if isinstance(p, str) and p.endswith("_weights.blob"))


IMPLEMENTATION = implementation(__name__, low_memory=Weights(Backend))
