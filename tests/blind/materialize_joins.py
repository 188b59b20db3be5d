"""Breaks: HOOK-MAT-2
Profile: core
Bug: the low-memory backend joins the weight chunks into one ``bytes`` to hash and write it in one
call, holding the whole blob in memory.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import LowMemory, directory, peak_memory


class Backend(hooks.FileBackedAotiBackend):
    @classmethod
    def materialize_weights_blob(
        cls, paths: object, compile_specs: Sequence[hooks.CompileSpec]
    ) -> object:
        if not hooks.is_low_memory_mode(compile_specs) or not isinstance(paths, list):
            return paths
        weights = [p for p in paths if isinstance(p, hooks.Weights)]
        so_paths = [p for p in paths if isinstance(p, str) and p.endswith(".wrapper.so")]
        if len(weights) != 1 or len(so_paths) != 1:
            return paths
        blob_path = os.path.splitext(so_paths[0])[0] + "_weights.blob"
        blob = b"".join(weights[0].chunks)  # the whole blob at once
        with open(blob_path, "wb") as f:
            f.write(blob)
        rest = [p for p in paths if not isinstance(p, hooks.Weights)]
        return [*rest, hooks.WeightsBlobPath(blob_path, hashlib.sha256(blob).digest())]


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    assert impl.low_memory is not None
    low_memory = impl.low_memory

    def chunks() -> object:
        for i in range(16):
            yield bytes([i]) * (1 << 20)

    with directory() as tmp:
        paths: list[str] = []
        peak = peak_memory(
            lambda: paths.append(
                low_memory.materialize(os.path.join(tmp, "m.wrapper.so"), chunks())
            )
        )
        if peak > 8 << 20:
            return f"materializing 16 chunks of 1 MiB held {peak} bytes"
        return None


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
