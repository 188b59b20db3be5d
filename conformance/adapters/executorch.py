"""The adapter for the installed ExecuTorch (``executorch.exir._serialize`` and the backend hooks).

It imports ExecuTorch by name at run time, so the suite itself never depends on torch; whatever does
not import here is reported as an absent capability with the import error as its reason.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import ModuleType, SimpleNamespace
from typing import TypeVar, cast

from ..api import (
    Capability,
    CopyHook,
    FileBackedData,
    FileBackedDataClass,
    Implementation,
    ImplementationError,
    MissingFileBackedData,
    Preprocess,
    Submodules,
)

__all__ = ["load"]

T = TypeVar("T")
_names = itertools.count()


class _StopAfterPreprocess(Exception):
    """Raised by the probe backend once preprocess ran: the rest of lowering needs a real graph."""


def _import(name: str) -> ModuleType:
    return importlib.import_module(name)


class _Missing(Exception):
    """The installed release has the module but not the hook (it came in a later release)."""


def _require(owner: type, *names: str) -> None:
    missing = [n for n in names if not hasattr(owner, n)]
    if missing:
        raise _Missing(f"{owner.__name__} has no {', '.join(missing)}")


class _Lowering:
    def __init__(self) -> None:
        self._api = _import("executorch.exir.backend.backend_api")
        self._details = _import("executorch.exir.backend.backend_details")
        self._schema = _import("executorch.exir.backend.compile_spec_schema")
        _require(self._details.BackendDetails, "copy_exported_program_for_preprocess")

    def compile_spec(self, key: str, value: bytes) -> object:
        compile_spec: object = self._schema.CompileSpec(key, value)
        return compile_spec

    def default_copy(self, program: T, compile_specs: Sequence[object]) -> T:
        copied: T = self._details.BackendDetails.copy_exported_program_for_preprocess(
            program, list(compile_specs)
        )
        return copied

    def lower(
        self, submodules: Submodules, copy_hook: CopyHook | None, preprocess: Preprocess
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
        _require(self._aoti, "materialize_weights_blob", "load_weights_blob")

    def materialize(self, paths: T, compile_specs: Sequence[object]) -> T:
        result: T = self._aoti.materialize_weights_blob(paths, list(compile_specs))
        return result

    def load(self, blob_path: str, compile_specs: Sequence[object]) -> tuple[object, str]:
        data, digest = self._aoti.load_weights_blob(blob_path, list(compile_specs))
        return data, str(digest)


class _FlagReadingsDiffer(Exception):
    """ExecuTorch's places that read ``low_memory_mode`` gave different answers (HOOK-LOW-3)."""


class _LowMemory:
    """The CUDA backend's low-memory weights, driven on the CPU: ``materialize_weights_blob`` gets
    a structured ``Weights`` of one CPU tensor holding the chunks, inside the weight collector's
    capture (as ``preprocess`` sets it up); ``load_weights_blob`` gets the path handed on."""

    _CUDA = "executorch.backends.cuda.cuda_backend"
    _FIRST = (
        "torch",
        "torch._inductor.utils",
        "executorch.exir",
        "executorch.backends.aoti.aoti_backend",
    )

    def __init__(self) -> None:
        from . import stand_in

        self._module = stand_in.import_with_stand_in(self._CUDA, self._FIRST)
        self._cuda = self._module.CudaBackend
        _require(self._cuda, "load_weights_blob", "materialize_weights_blob", "_is_low_memory_mode")
        if "load_weights_blob" not in vars(self._cuda):
            raise _Missing("CudaBackend has no low-memory load_weights_blob")
        self._spec = _import("executorch.exir.backend.compile_spec_schema").CompileSpec
        self._torch = _import("torch")
        self._weights = _import("torch.export.pt2_archive._package_weights")
        self._collector = _import("executorch.backends.cuda.cuda_weight_collector")

    def _specs(self, *values: bytes) -> list[object]:
        return [self._spec("low_memory_mode", v) for v in values]

    def _tensor(self, chunks: Iterable[bytes]) -> object:
        """The chunks as one uint8 CPU tensor, copied in chunk by chunk (torch's memory)."""
        torch = self._torch
        parts = []
        for chunk in chunks:
            part = torch.empty(len(chunk), dtype=torch.uint8)
            if chunk:
                part.numpy()[:] = memoryview(chunk)
            parts.append(part)
        return torch.cat(parts) if parts else torch.empty(0, dtype=torch.uint8)

    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        tensor = self._tensor(chunks)
        weights = self._weights.Weights(
            {"weight": (tensor, self._weights.TensorProperties(tensor))}
        )
        collector = self._collector.CudaWeightCollector()
        cpu = self._collector.AOTI_DEVICE_TYPE_CPU
        with collector.capture(lambda _tensor: cpu) as capture:
            paths = self._cuda.materialize_weights_blob([so_path, weights], self._specs(b"ON"))
        artifact = capture.artifact
        for storage in getattr(artifact, "storages", {}).values():
            storage.close()  # the per-weight storage files: released, the suite checks the blob
        blob = next(p for p in paths if isinstance(p, str) and p != so_path)
        return str(blob)

    def load(self, blob_path: str) -> tuple[object, str]:
        data, digest = self._cuda.load_weights_blob(blob_path, self._specs(b"ON"))
        return data, str(digest)

    def mode(self, values: Sequence[bytes]) -> bool:
        specs = self._specs(*values)
        readings: dict[str, bool | ValueError] = {}
        for place, read in (
            ("CudaBackend._is_low_memory_mode", self._cuda._is_low_memory_mode),
            ("CudaBackend.get_extra_aoti_compile_context_manager", self._compile_context),
        ):
            try:
                readings[place] = bool(read(specs))
            except ValueError as exc:
                readings[place] = exc
        answers = set(map(repr, readings.values()))
        first = next(iter(readings.values()))
        if len(answers) == 1:
            if isinstance(first, ValueError):
                raise first
            return first
        raise _FlagReadingsDiffer(f"low_memory_mode {list(values)!r} is read as {readings!r}")

    def _compile_context(self, specs: list[object]) -> bool:
        """Whether the compile context turns low-memory export on: it enters the CPU-clone
        patch only then (stand-ins record it; nothing is compiled)."""
        entered: list[str] = []

        @contextlib.contextmanager
        def record(*_args: object) -> Iterator[None]:
            entered.append("on")
            yield

        module = self._module
        names = ("_keep_triton_reduction_loads_loop_scoped", "_compile_time_cpu_clones")
        saved = {n: getattr(module, n) for n in names}
        saved_trim = getattr(module, "trim_host_memory", None)
        try:
            for n in names:
                setattr(module, n, record)
            setattr(module, "trim_host_memory", lambda: None)  # noqa: B010
            with self._cuda.get_extra_aoti_compile_context_manager(specs):
                pass
        finally:
            for n, value in saved.items():
                setattr(module, n, value)
            setattr(module, "trim_host_memory", saved_trim)  # noqa: B010
        return bool(entered)


def _path_of(blob: FileBackedData) -> str:
    return str(getattr(blob, "_path"))  # noqa: B009  # ExecuTorch keeps it private


def _optional(
    factory: Callable[[], T], what: str, absent: dict[Capability, str], *caps: Capability
) -> T | None:
    try:
        return factory()
    except _Missing as exc:
        for cap in caps:
            absent[cap] = f"{what}: {exc} in this release"
        return None
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
    file_backed = hasattr(cord, "FileBackedData")
    if not file_backed:
        absent[Capability.FILE_BACKED] = f"ExecuTorch {version} has no FileBackedData"
    low_memory = None
    if not file_backed:
        absent[Capability.LOW_MEMORY] = "low-memory weights need file-backed data"
    else:
        low_memory = _optional(
            _LowMemory, "executorch.backends.cuda.cuda_backend", absent, Capability.LOW_MEMORY
        )
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
        target="executorch",
        lowering=lowering,
        weights=weights,
        low_memory=low_memory,
        file_backed=file_backed,
        absent=absent,
    )
