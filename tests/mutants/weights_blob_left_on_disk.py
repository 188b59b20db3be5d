"""Breaks: HOOK-LOAD-1

The default ``load_weights_blob`` reads the blob into memory but leaves its file on disk.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._base import Weights
from ._proofs_c import weights_loaded


class AotiBackend(hooks.AotiBackend):
    @staticmethod
    def _remove_loaded(blob_path: str) -> None:
        """Nothing: the blob read into memory stays on disk."""


weights = Weights(AotiBackend)
IMPLEMENTATION = implementation(__name__, weights=weights, weights_store=weights)


def scenario(impl: Implementation) -> str | None:
    return weights_loaded(impl)
