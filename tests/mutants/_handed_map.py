"""What the mutants that hand a digest from ``materialize_weights_blob`` to ``load_weights_blob``
through a process-wide map share (each breaks HOOK-LOW-4 in its own way): a map from the blob's
path to its stamp and digest, checked against the file at the load, where the reference carries
the digest on the path object. How the map is keyed (``_key``) and whether a load empties it
(``_taken``) are steps; as they are here, the load that comes removes its entry, and a
materialize whose load never comes leaves its entry for ever."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from reference import hooks

from ._base import _LOW_MEMORY, LowMemory, LowMemoryBackend

__all__ = ["HandedMap", "HandedMapWeights", "Stamp"]

Stamp = tuple[int, int, int, int]
"""The file a digest was computed for: device, inode, size and modification time."""


class HandedMap(LowMemoryBackend):
    """The low-memory backend with the handed-on digest in a map of its own (one per subclass);
    ``materialize`` hands on plain ``str`` paths."""

    handed: ClassVar[dict[str, tuple[Stamp, bytes]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.handed = {}

    @classmethod
    def materialize_weights_blob(cls, paths: Any, compile_specs: Sequence[Any]) -> Any:
        out = super().materialize_weights_blob(paths, compile_specs)
        if not isinstance(out, list):
            return out
        for p in out:
            if isinstance(p, hooks.WeightsBlobPath):
                cls.handed[cls._key(p)] = (hooks._stamp(p), p.sha256)
        return [str(p) if isinstance(p, hooks.WeightsBlobPath) else p for p in out]

    @classmethod
    def _handed_digest(cls, blob_path: str) -> bytes | None:
        found = cls._taken(cls._key(blob_path))
        try:
            return found[1] if found and hooks._stamp(blob_path) == found[0] else None
        except OSError:
            return None

    @staticmethod
    def _key(blob_path: str) -> str:
        """The map's key for a blob: its absolute path."""
        return os.path.abspath(blob_path)

    @classmethod
    def _taken(cls, key: str) -> tuple[Stamp, bytes] | None:
        """The entry a load uses, removed from the map."""
        return cls.handed.pop(key, None)


class HandedMapWeights(LowMemory):
    """The adapter's low-memory weights for a :class:`HandedMap` backend (paths are ``str``)."""

    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        paths = self.backend.materialize_weights_blob([so_path, hooks.Weights(chunks)], _LOW_MEMORY)
        return next(p for p in paths if isinstance(p, str) and p.endswith("_weights.blob"))
