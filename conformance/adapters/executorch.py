"""The adapter for the installed ExecuTorch (``executorch.exir._serialize`` and the backend hooks).

It imports ExecuTorch by name at run time, so the suite itself never depends on torch. A hook this
release does not have is an absent capability (with the reason); a hook it has that cannot be
driven here (a helper module missing, an import error) fails its clauses with the error.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import itertools
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import ModuleType, SimpleNamespace
from typing import Any, TypeVar, cast

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
from . import undrivable

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
    """A backend's low-memory weights, driven on the CPU: ``materialize_weights_blob`` gets a
    structured ``Weights`` of one CPU tensor holding the chunks (what AOTInductor hands it), inside
    the weight collector's capture when the backend's module uses one (1.5.1's CUDA backend, as its
    ``preprocess`` sets it up); ``load_weights_blob`` gets the path handed on. ``backend`` is the
    class whose hooks are driven (by default ExecuTorch's ``CudaBackend``, imported under the
    ``triton`` stand-in)."""

    _CUDA = "executorch.backends.cuda.cuda_backend"
    _COLLECTOR = "executorch.backends.cuda.cuda_weight_collector"
    _FIRST = (
        "torch",
        "torch._inductor.utils",
        "executorch.exir",
        "executorch.backends.aoti.aoti_backend",
    )

    def __init__(self, backend: type | None = None) -> None:
        from . import stand_in

        if backend is None:
            self._module = stand_in.import_with_stand_in(self._CUDA, self._FIRST)
            backend = cast(type, self._module.CudaBackend)
            if "load_weights_blob" not in vars(backend):
                raise _Missing("CudaBackend has no low-memory load_weights_blob")
        else:
            self._module = _import(backend.__module__)
        self._cuda: Any = backend  # a class of ExecuTorch's, untyped
        _require(self._cuda, "load_weights_blob", "materialize_weights_blob")
        self._spec = _import("executorch.exir.backend.compile_spec_schema").CompileSpec
        self._torch = _import("torch")
        self._weights = _import("torch.export.pt2_archive._package_weights")
        # The collector is needed only by a backend whose module uses one (a helper module that is
        # missing then is an error naming it, never a reason to skip the hooks).
        self._collector = (
            _import(self._COLLECTOR) if hasattr(self._module, "CudaWeightCollector") else None
        )

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
        with contextlib.ExitStack() as stack:
            capture = None
            if self._collector is not None:
                collector = self._collector.CudaWeightCollector()
                cpu = self._collector.AOTI_DEVICE_TYPE_CPU
                capture = stack.enter_context(collector.capture(lambda _tensor: cpu))
            paths = self._cuda.materialize_weights_blob([so_path, weights], self._specs(b"ON"))
        artifact = getattr(capture, "artifact", None)
        for storage in getattr(artifact, "storages", {}).values():
            storage.close()  # the per-weight storage files: released, the suite checks the blob
        if not isinstance(paths, list):
            raise ImplementationError(
                f"{self._cuda.__name__}.materialize_weights_blob returned {paths!r}, not a list"
            )
        blob = next((p for p in paths if isinstance(p, str) and p != so_path), None)
        if blob is None:
            raise ImplementationError(
                f"{self._cuda.__name__}.materialize_weights_blob handed on no blob path: {paths!r}"
            )
        return blob  # as returned: a str subclass may carry what load needs

    def load(self, blob_path: str) -> tuple[object, str]:
        data, digest = self._cuda.load_weights_blob(blob_path, self._specs(b"ON"))
        return data, str(digest)

    def mode(self, values: Sequence[bytes]) -> bool:
        specs = self._specs(*values)
        readings: dict[str, bool | ValueError] = {}
        name = self._cuda.__name__
        places: list[tuple[str, Callable[[list[object]], object]]] = []
        if hasattr(self._cuda, "_is_low_memory_mode"):
            places.append((f"{name}._is_low_memory_mode", self._cuda._is_low_memory_mode))
        if hasattr(self._module, "_compile_time_cpu_clones"):
            places.append((f"{name}.get_extra_aoti_compile_context_manager", self._compile_context))
        places.append((f"{name}.load_weights_blob", self._load_reading))
        for place, read in places:
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

    def _load_reading(self, specs: list[object]) -> bool:
        """Whether ``load_weights_blob`` takes a one-byte blob over as a file (low-memory) rather
        than reading it into ``bytes``."""
        with tempfile.TemporaryDirectory(prefix="cordspec-flag-") as directory:
            path = os.path.join(directory, "model.wrapper_weights.blob")
            with open(path, "wb") as f:
                f.write(b"w")
            data, _ = self._cuda.load_weights_blob(path, specs)
            close = getattr(data, "close", None)
            if callable(close):
                close()
            return not isinstance(data, bytes)

    def _compile_context(self, specs: list[object]) -> bool:
        """Whether the compile context turns low-memory export on: it enters the CPU-clone
        patch only then (stand-ins record it; nothing is compiled)."""
        entered: list[str] = []

        @contextlib.contextmanager
        def record(*_args: object) -> Iterator[None]:
            entered.append("on")
            yield

        module = self._module
        names = [
            n
            for n in ("_keep_triton_reduction_loads_loop_scoped", "_compile_time_cpu_clones")
            if hasattr(module, n)
        ]
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
    """The driver ``factory`` makes, or None with the capabilities absent when the release lacks
    the hook (its module, or the hook on its class); a hook that exists but whose driver cannot be
    built (a helper module missing, an import error) gives a driver that fails every use, naming
    the module and the error, so its clauses fail rather than read "not applicable"."""
    try:
        return factory()
    except _Missing as exc:
        for cap in caps:
            absent[cap] = f"{what}: {exc} in this release"
        return None
    except ModuleNotFoundError as exc:
        if exc.name is not None and (what == exc.name or what.startswith(exc.name + ".")):
            for cap in caps:
                absent[cap] = f"this release has no {what} ({exc})"
            return None
        return cast(T, undrivable.Undrivable(what, exc))
    except Exception as exc:  # the module is there but does not import, or the driver fails
        return cast(T, undrivable.Undrivable(what, exc))


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
