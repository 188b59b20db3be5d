"""Breaks: HOOK-LOW-3
Profile: strict
Bug: the ``low_memory_mode`` value is compared with ``b"ON"`` and ``b"OFF"`` exactly, so
``b"on"`` (any case must be accepted) raises ``ValueError`` as an invalid value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from conformance.api import Implementation
from reference import CordBuffer, hooks

from . import implementation
from ._support import LowMemory


def _low_memory(specs: Iterable[hooks.CompileSpec]) -> bool:
    values = {s.value for s in specs if s.key == hooks.LOW_MEMORY_MODE}
    invalid = values - {b"ON", b"OFF"}
    if invalid:
        raise ValueError(f"Invalid {hooks.LOW_MEMORY_MODE}: {sorted(invalid)}")
    if len(values) > 1:
        raise ValueError(f"Conflicting {hooks.LOW_MEMORY_MODE} compile specs")
    return values == {b"ON"}


class Backend(hooks.FileBackedAotiBackend):
    @classmethod
    def materialize_weights_blob(
        cls, paths: object, compile_specs: Sequence[hooks.CompileSpec]
    ) -> object:
        _low_memory(compile_specs)
        return super().materialize_weights_blob(paths, compile_specs)

    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[CordBuffer, str]:
        _low_memory(compile_specs)
        return super().load_weights_blob(blob_path, compile_specs)


class Mode(LowMemory):
    def mode(self, values: Sequence[bytes]) -> bool:
        return _low_memory(hooks.CompileSpec(hooks.LOW_MEMORY_MODE, v) for v in values)


IMPLEMENTATION = implementation(__name__, low_memory=Mode(Backend))


def scenario(impl: Implementation) -> str | None:
    assert impl.low_memory is not None
    try:
        on = impl.low_memory.mode([b"on"])
    except ValueError as exc:
        return f"low_memory_mode b'on' was refused: {exc}"
    return None if on else "low_memory_mode b'on' did not turn low-memory mode on"
