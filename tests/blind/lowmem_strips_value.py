"""Breaks: HOOK-LOW-3
Profile: strict
Bug: the ``low_memory_mode`` value is read with ``.strip().upper()``, so ``b" on"`` or
``b"OFF\\n"`` are taken as a mode where any value but ON or OFF must raise ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from conformance.api import Implementation
from reference import hooks
from reference.file_backed import FileBackedData

from . import implementation
from ._support import LowMemory, flag_refused, low_memory_backend


def _stripped(specs: Iterable[hooks.CompileSpec]) -> tuple[hooks.CompileSpec, ...]:
    return tuple(
        hooks.CompileSpec(s.key, s.value.strip())
        if s.key == hooks.LOW_MEMORY_MODE and isinstance(s.value, bytes)
        else s
        for s in specs
    )


class Backend(low_memory_backend(FileBackedData)):  # type: ignore[misc]  # a class made at import
    @classmethod
    def materialize_weights_blob(
        cls, paths: object, compile_specs: Sequence[hooks.CompileSpec]
    ) -> object:
        return super().materialize_weights_blob(paths, _stripped(compile_specs))

    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[object, str]:
        return super().load_weights_blob(blob_path, _stripped(compile_specs))


class _StrippingMode(LowMemory):
    def mode(self, values: Sequence[bytes]) -> bool:
        return hooks.is_low_memory_mode(
            _stripped(hooks.CompileSpec(hooks.LOW_MEMORY_MODE, v) for v in values)
        )


IMPLEMENTATION = implementation(__name__, low_memory=_StrippingMode(Backend))


def scenario(impl: Implementation) -> str | None:
    return flag_refused(impl, b" on")
