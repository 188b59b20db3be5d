"""Breaks: HOOK-LOAD-1

The default ``load_weights_blob`` returning the digest as uppercase hex (``.hexdigest().upper()``,
as a port from a language whose formatter defaults to it might): the key is no longer the one the
runtime looks for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._base import Weights
from ._proofs_c import weights_loaded


class UpperHex(hooks.AotiBackend):
    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[Any, str]:
        data, hexdigest = super().load_weights_blob(blob_path, compile_specs)
        return data, hexdigest.upper()


weights = Weights(UpperHex)
IMPLEMENTATION = implementation(__name__, weights=weights, weights_store=weights)


def scenario(impl: Implementation) -> str | None:
    return weights_loaded(impl)
