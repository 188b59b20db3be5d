"""The adapter for cordspec's own reference implementation."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar, cast

import reference
from reference import hooks, sweep

from ..api import CopyHook, FileBackedData, Implementation, NamedDataStore, Preprocess, Submodules
from .namespace import from_namespace

__all__ = ["load"]

T = TypeVar("T")
_LOW_MEMORY = (hooks.CompileSpec(hooks.LOW_MEMORY_MODE, b"ON"),)
_names = itertools.count()


def _specs(compile_specs: Sequence[object]) -> tuple[hooks.CompileSpec, ...]:
    return tuple(cast(hooks.CompileSpec, compile_spec) for compile_spec in compile_specs)


class Lowering:
    """The reference's lowering, over a ``BackendDetails`` base and a lowering function (the
    reference's by default; a broken port of the suite's own tests gives its own)."""

    def __init__(
        self,
        base: type[hooks.BackendDetails] = hooks.BackendDetails,
        lower_all: Callable[..., object] = hooks.lower_all_submodules_to_backend,
    ) -> None:
        self.base = base
        self.lower_all = lower_all

    def compile_spec(self, key: str, value: bytes) -> object:
        return hooks.CompileSpec(key, value)

    def default_copy(self, program: T, compile_specs: Sequence[object]) -> T:
        return self.base.copy_exported_program_for_preprocess(program, _specs(compile_specs))

    def lower(
        self, submodules: Submodules, copy_hook: CopyHook | None, preprocess: Preprocess
    ) -> None:
        def run(
            program: object, compile_specs: Sequence[hooks.CompileSpec]
        ) -> hooks.PreprocessResult:
            preprocess(program, compile_specs)
            return hooks.PreprocessResult()

        namespace: dict[str, object] = {"preprocess": staticmethod(run)}
        if copy_hook is not None:
            hook = copy_hook

            def copy(cls: type, program: object, compile_specs: Sequence[object]) -> object:
                return hook(program, compile_specs)

            namespace["copy_exported_program_for_preprocess"] = classmethod(copy)
        backend = cast(
            "type[hooks.BackendDetails]",
            type(f"CordspecProbe{next(_names)}", (self.base,), namespace),
        )
        self.lower_all(
            backend,
            {
                method: [hooks.Submodule(program, _specs(specs)) for program, specs in subs]
                for method, subs in submodules.items()
            },
        )


class _Weights:
    def materialize(self, paths: T, compile_specs: Sequence[object]) -> T:
        # the reference types the hook as ExecuTorch does (any paths in, any out); the default
        # hands back the object it is given (HOOK-MAT-1), which is what makes it a T here
        result = hooks.AotiBackend.materialize_weights_blob(paths, _specs(compile_specs))
        if result is not paths:
            raise AssertionError(
                f"materialize_weights_blob returned {result!r}, not the paths it was given"
            )
        return paths

    def load(self, blob_path: str, compile_specs: Sequence[object]) -> tuple[object, str]:
        return hooks.AotiBackend.load_weights_blob(blob_path, _specs(compile_specs))

    def store(self, blob_path: str, store: NamedDataStore) -> str:
        return hooks.AotiBackend.store_weights_blob(
            blob_path, (), cast(reference.NamedDataStore, store)
        )


class _LowMemory:
    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        paths = hooks.FileBackedAotiBackend.materialize_weights_blob(
            [so_path, hooks.Weights(chunks)], _LOW_MEMORY
        )
        if not isinstance(paths, list):
            raise TypeError(f"materialize_weights_blob returned {paths!r}, not a list of paths")
        return next(p for p in paths if isinstance(p, hooks.WeightsBlobPath))

    def load(self, blob_path: str) -> tuple[object, str]:
        return hooks.FileBackedAotiBackend.load_weights_blob(blob_path, _LOW_MEMORY)

    def mode(self, values: Sequence[bytes]) -> bool:
        return hooks.is_low_memory_mode(hooks.CompileSpec(hooks.LOW_MEMORY_MODE, v) for v in values)


class _Sweep:
    def sweep(self, directory: str, dry_run: bool) -> list[str]:
        result = sweep.sweep(directory, dry_run=dry_run)
        return [p.path for p in result.removed]


def _path_of(blob: FileBackedData) -> str:
    return cast(reference.FileBackedData, blob).path


def load() -> Implementation:
    """The reference: its five classes as from any such module, and every capability."""
    weights = _Weights()
    return dataclasses.replace(
        from_namespace(reference, "reference"),
        absent={},
        lowering=Lowering(),
        weights=weights,
        weights_store=weights,
        low_memory=_LowMemory(),
        sweep=_Sweep(),
    )
