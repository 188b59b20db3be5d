"""Breaks: HOOK-LOAD-1
Profile: core
Bug: the default ``load_weights_blob`` reads the blob and returns it with its digest but leaves the
blob file on disk (the port removes it only in low-memory mode, where it is moved).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import Weights, directory, make_file, read_hashed


class Backend(hooks.AotiBackend):
    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[bytes, str]:
        return read_hashed(blob_path)  # the blob file is left on disk


_WEIGHTS = Weights(Backend)
IMPLEMENTATION = implementation(__name__, weights=_WEIGHTS, weights_store=_WEIGHTS)


def scenario(impl: Implementation) -> str | None:
    assert impl.weights is not None
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w.blob"), b"weights")
        data, hexdigest = impl.weights.load(path, [])
        if (data, hexdigest) != (b"weights", hashlib.sha256(b"weights").hexdigest()):
            return f"load_weights_blob returned {(data, hexdigest)!r}"
        if os.path.exists(path):
            return "load_weights_blob left the blob file"
        return None
