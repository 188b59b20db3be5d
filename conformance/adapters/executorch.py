"""The adapter for the installed ExecuTorch (``executorch.exir._serialize`` and the backend hooks).

It imports ExecuTorch by name at run time, so the suite itself never depends on torch; whatever does
not import here is reported as an absent capability with the import error as its reason.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import itertools
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType, SimpleNamespace
from typing import TypeVar, cast

from ..api import (
    Capability,
    FileBackedData,
    FileBackedDataClass,
    Implementation,
    ImplementationError,
    MissingFileBackedData,
)

__all__ = ["load"]

T = TypeVar("T")
_names = itertools.count()


class _StopAfterPreprocess(Exception):
    """Raised by the probe backend once preprocess ran: the rest of lowering needs a real graph."""


def _import(name: str) -> ModuleType:
    return importlib.import_module(name)


class _Lowering:
    def __init__(self) -> None:
        self._api = _import("executorch.exir.backend.backend_api")
        self._details = _import("executorch.exir.backend.backend_details")
        self._schema = _import("executorch.exir.backend.compile_spec_schema")

    def compile_spec(self, key: str, value: bytes) -> object:
        spec: object = self._schema.CompileSpec(key, value)
        return spec

    def default_copy(self, program: T, compile_specs: Sequence[object]) -> T:
        copied: T = self._details.BackendDetails.copy_exported_program_for_preprocess(
            program, list(compile_specs)
        )
        return copied

    def lower(
        self,
        submodules: Mapping[str, Sequence[tuple[object, Sequence[object]]]],
        copy_hook: Callable[[object, Sequence[object]], object] | None,
        preprocess: Callable[[object, Sequence[object]], None],
    ) -> None:
        details = self._details

        def run(program: object, compile_specs: Sequence[object]) -> object:
            preprocess(program, compile_specs)
            return details.PreprocessResult()

        def run_all(cls: type, programs: object, compile_specs: object) -> object:
            details.BackendDetails.preprocess_multimethod.__func__(cls, programs, compile_specs)
            raise _StopAfterPreprocess

        namespace: dict[str, object] = {
            "preprocess": staticmethod(run),
            "preprocess_multimethod": classmethod(run_all),
        }
        if copy_hook is not None:
            hook = copy_hook

            def copy(cls: type, program: object, compile_specs: Sequence[object]) -> object:
                return hook(program, compile_specs)

            namespace["copy_exported_program_for_preprocess"] = classmethod(copy)
        name = f"CordspecProbe{next(_names)}"
        type(name, (details.BackendDetails,), namespace)
        # lower_all_submodules_to_backend reads only these two meta fields before preprocess.
        nodes = {
            method: [
                SimpleNamespace(meta={"compile_spec": list(specs), "submodule_program": program})
                for program, specs in subs
            ]
            for method, subs in submodules.items()
        }
        with contextlib.suppress(_StopAfterPreprocess):
            self._api.lower_all_submodules_to_backend(name, nodes, dict.fromkeys(nodes))


class _Weights:
    def __init__(self) -> None:
        self._aoti = _import("executorch.backends.aoti.aoti_backend").AotiBackend

    def materialize(self, paths: T, compile_specs: Sequence[object]) -> T:
        result: T = self._aoti.materialize_weights_blob(paths, list(compile_specs))
        return result

    def load(self, blob_path: str, compile_specs: Sequence[object]) -> tuple[object, str]:
        data, digest = self._aoti.load_weights_blob(blob_path, list(compile_specs))
        return data, str(digest)


def _path_of(blob: FileBackedData) -> str:
    return str(getattr(blob, "_path"))  # noqa: B009  # ExecuTorch keeps it private


def _optional(
    factory: Callable[[], T], what: str, absent: dict[Capability, str], *caps: Capability
) -> T | None:
    try:
        return factory()
    except Exception as exc:  # any import-time failure means: not available here, and why
        for cap in caps:
            absent[cap] = f"{what} does not import here: {type(exc).__name__}: {exc}"
        return None


def load() -> Implementation:
    """ExecuTorch as installed; raises ImplementationError when it is not installed."""
    try:
        cord = _import("executorch.exir._serialize._cord")
        named = _import("executorch.exir._serialize._named_data_store")
        serializer = _import("executorch.exir._serialize.data_serializer")
    except ImportError as exc:
        raise ImplementationError(
            f"executorch is not importable ({exc}); install it with "
            "'pip install --no-deps executorch==1.5.1' plus torch (see tox -e executorch)"
        ) from exc
    version = importlib.metadata.version("executorch")
    absent: dict[Capability, str] = {
        Capability.SWEEP: "ExecuTorch has no sweep of orphaned placeholders",
        Capability.WEIGHTS_KEY: "ExecuTorch stores the blob inside AotiBackend.preprocess, "
        "which needs torch._inductor.aot_compile to run",
    }
    lowering = _optional(_Lowering, "executorch.exir.backend", absent, Capability.COPY_HOOK)
    weights = _optional(
        _Weights, "executorch.backends.aoti.aoti_backend", absent, Capability.WEIGHTS_HOOKS
    )
    cuda = _optional(
        lambda: _import("executorch.backends.cuda.cuda_backend"),
        "executorch.backends.cuda.cuda_backend",
        absent,
        Capability.LOW_MEMORY,
    )
    if cuda is not None:
        absent[Capability.LOW_MEMORY] = (
            "CudaBackend.materialize_weights_blob needs the structured Weights of AOTInductor"
        )
    file_backed = hasattr(cord, "FileBackedData")
    if not file_backed:
        absent[Capability.FILE_BACKED] = f"ExecuTorch {version} has no FileBackedData"
    return Implementation(
        name="executorch",
        version=version,
        Cord=cord.Cord,
        FileBackedData=(
            cord.FileBackedData if file_backed else cast(FileBackedDataClass, MissingFileBackedData)
        ),
        NamedDataStore=named.NamedDataStore,
        NamedDataStoreOutput=named.NamedDataStoreOutput,
        DataEntry=serializer.DataEntry,
        path_of=_path_of,
        spec="executorch",
        lowering=lowering,
        weights=weights,
        file_backed=file_backed,
        absent=absent,
    )
