"""Breaks: HOOK-LOW-2
Profile: core
Bug: ``materialize_weights_blob`` hands on its paths as plain ``str`` (``os.fspath`` of each, "to
return what the compiler returned"), which drops the digest the blob's path carried: the load
then hashes the blob again, reading it whole.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import LowMemory, directory, read_cost


class Backend(hooks.FileBackedAotiBackend):
    @classmethod
    def materialize_weights_blob(
        cls, paths: object, compile_specs: Sequence[hooks.CompileSpec]
    ) -> object:
        result = super().materialize_weights_blob(paths, compile_specs)
        if not isinstance(result, list):
            return result
        return [str.__str__(p) if isinstance(p, str) else p for p in result]


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
_SIZE = 4 << 20


def scenario(impl: Implementation) -> str | None:
    assert impl.low_memory is not None
    low_memory = impl.low_memory
    with directory() as tmp:
        blob = low_memory.materialize(
            os.path.join(tmp, "model.wrapper.so"), [b"\x07" * (1 << 20)] * (_SIZE >> 20)
        )
        loaded: list[tuple[object, str]] = []
        cost = read_cost(lambda: loaded.append(low_memory.load(blob)))
        data = loaded[0][0]
        close = getattr(data, "close", None)
        if close is not None:
            close()
    if cost > _SIZE // 4:
        return f"loading a {_SIZE >> 20} MiB blob just materialized read {cost >> 20} MiB"
    return None
