"""Breaks: HOOK-MAT-3, HOOK-MAT-4, HOOK-MAT-6

Low-memory ``materialize_weights_blob`` that writes the blob with ``open(path, "wb")`` at its final
name, as ExecuTorch's backends do: a symbolic link planted there is followed, a FIFO hangs the open,
and a regular file another user planted receives the weights (and stays that user's to change).
The path's directory links are followed too (HOOK-MAT-4), and the ``with`` that closes the file is
all its clean-up: a raising handler at that line leaves the descriptor open (HOOK-MAT-6).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import TypeVar

from conformance.api import Implementation
from reference import hooks
from reference.file_backed import CHUNK_SIZE
from tests.blind._support import directory, make_file, read_file

from . import implementation
from ._base import LowMemory, LowMemoryBackend
from ._proofs_c import raised

P = TypeVar("P")


class Backend(LowMemoryBackend):
    @classmethod
    def materialize_weights_blob(cls, paths: P, compile_specs: Sequence[hooks.CompileSpec]) -> P:
        if not hooks.is_low_memory_mode(compile_specs) or not isinstance(paths, list):
            return paths
        weights = [p for p in paths if isinstance(p, hooks.Weights)]
        so_paths = [p for p in paths if isinstance(p, str) and p.endswith(".wrapper.so")]
        if len(weights) != 1 or len(so_paths) != 1:
            return paths
        blob_path = os.path.splitext(so_paths[0])[0] + "_weights.blob"
        digest = hashlib.sha256()
        with open(blob_path, "wb") as f:
            for chunk in weights[0].chunks:
                for start in range(0, len(chunk), CHUNK_SIZE):
                    piece = chunk[start : start + CHUNK_SIZE]
                    digest.update(piece)
                    f.write(piece)
        rest = [p for p in paths if not isinstance(p, hooks.Weights)]
        return [*rest, hooks.WeightsBlobPath(blob_path, digest.digest())]  # type: ignore[return-value]  # P is a list here


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    assert impl.low_memory is not None
    low_memory = impl.low_memory
    with directory() as tmp:
        victim = make_file(os.path.join(tmp, "victim"), b"not the weights")
        so_path = os.path.join(tmp, "model.wrapper.so")
        os.symlink(victim, os.path.join(tmp, "model.wrapper_weights.blob"))  # planted
        error = raised(lambda: low_memory.materialize(so_path, [b"weights"]))
        if read_file(victim) != b"not the weights":
            return "materialize wrote the weights through a link planted at the blob's name"
        if not isinstance(error, OSError):
            return f"materialize with a link planted at the blob's name gave {error!r}"
        return None
