"""Breaks: HOOK-LOAD-1, HOOK-LOAD-2

Hex and raw digests swapped in the default ``load_weights_blob``: it returns the raw digest
(decoded byte for byte into a ``str``) where the hex digest is due, so the blob's key is not
``<sha256 hex>_weights_blob``.
"""

from __future__ import annotations

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
    ) -> tuple[hooks.CordBuffer, str]:
        data, hexdigest = super().load_weights_blob(blob_path, compile_specs)
        return data, bytes.fromhex(hexdigest).decode("latin-1")


weights = Weights(AotiBackend)
IMPLEMENTATION = implementation(__name__, weights=weights, weights_store=weights)


def scenario(impl: Implementation) -> str | None:
    return weights_loaded(impl)
