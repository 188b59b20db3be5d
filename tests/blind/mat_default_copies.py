"""Breaks: HOOK-MAT-1
Profile: core
Bug: the default ``materialize_weights_blob`` returns ``list(paths)``, a copy of the compiler's
outputs ("never hand back the caller's list"), not the same object.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import Weights


class Backend(hooks.AotiBackend):
    @classmethod
    def materialize_weights_blob(
        cls, paths: object, compile_specs: Sequence[hooks.CompileSpec]
    ) -> object:
        return list(paths) if isinstance(paths, list) else paths


IMPLEMENTATION = implementation(__name__, weights=Weights(Backend))


def scenario(impl: Implementation) -> str | None:
    assert impl.weights is not None
    paths = ["/tmp/model.wrapper.so", "/tmp/model.blob"]
    if impl.weights.materialize(paths, []) is not paths:
        return "the default materialize_weights_blob did not return the same object"
    return None
