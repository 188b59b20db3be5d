"""Breaks: HOOK-LOAD-1

The default ``load_weights_blob`` reads the blob into memory but leaves its file on disk.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._base import Weights
from ._proofs_c import weights_loaded


class AotiBackend(hooks.AotiBackend):
    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[bytes, str]:
        with open(blob_path, "rb") as f:
            data = f.read()
        return data, hashlib.sha256(data).hexdigest()


weights = Weights(AotiBackend)
IMPLEMENTATION = implementation(__name__, weights=weights, weights_store=weights)


def scenario(impl: Implementation) -> str | None:
    return weights_loaded(impl)
