"""One backend class judged on its hooks: ``cordspec run --backend package.module:Class``.

The class's three hooks (``copy_exported_program_for_preprocess``, ``materialize_weights_blob``,
``load_weights_blob``) are driven with another implementation's store, blobs and lowering around
them (``--impl``, the reference by default): while a hook runs, that implementation's classes stand
in ExecuTorch's modules in place of ExecuTorch's own (as ``cordspec host`` puts them). Each hook is
attributed to the class that defines it: a hook the class does not override is judged as its
base's, and the verdict says "inherited from <base>", never that the class has it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.metadata
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar, cast

from ..api import (
    Capability,
    CopyHook,
    Implementation,
    ImplementationError,
    Lowering,
    LowMemoryWeights,
    Preprocess,
    Submodules,
    WeightsHooks,
)
from . import undrivable

__all__ = [
    "HOOK_NAMES",
    "PREFIX",
    "Origin",
    "hook_origins",
    "load",
    "parse_target",
    "target",
]

T = TypeVar("T")
PREFIX = "backend="
"""How an ``--impl`` value names a backend judged with an implementation around it."""
_AROUND = ";impl="
COPY, MATERIALIZE, LOAD = (
    "copy_exported_program_for_preprocess",
    "materialize_weights_blob",
    "load_weights_blob",
)
HOOK_NAMES = (COPY, MATERIALIZE, LOAD)
_FIRST = (
    "torch",
    "torch._inductor.utils",
    "executorch.exir",
    "executorch.backends.aoti.aoti_backend",
)
"""Imported before a backend module under the ``triton`` stand-in (see ``stand_in``)."""


def target(backend: str, impl: str) -> str:
    """The ``--impl`` value for ``backend`` (``package.module:Class``) with ``impl`` around it."""
    return f"{PREFIX}{backend}{_AROUND}{impl}"


def parse_target(value: str) -> tuple[str, str] | None:
    """``(backend, impl)`` of a value made by :func:`target`; None for any other value."""
    if not value.startswith(PREFIX) or _AROUND not in value:
        return None
    backend, _, impl = value[len(PREFIX) :].partition(_AROUND)
    return backend, impl


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where a hook of the backend class comes from."""

    hook: str
    owner: str
    """The class that defines it (``AotiBackend``, ``BackendDetails``, or the class itself)."""
    own: bool

    def describe(self) -> str:
        """``own`` or ``inherited from <owner>``."""
        return "own" if self.own else f"inherited from {self.owner}"


def hook_origins(backend: type) -> dict[str, Origin]:
    """Each hook of ``backend`` with the class of its MRO that defines it; a hook no class of the
    MRO defines is left out."""
    origins = {}
    for hook in HOOK_NAMES:
        owner = next((k for k in backend.__mro__ if hook in vars(k)), None)
        if owner is not None:
            origins[hook] = Origin(hook, owner.__name__, owner is backend)
    return origins


def import_backend(spec: str) -> type:
    """The class ``package.module:Class`` names, its module imported under the ``triton``
    stand-in; raises :class:`ImplementationError` naming what failed."""
    from . import stand_in

    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise ImplementationError(f"--backend {spec!r}: expected package.module:Class")
    try:
        module = stand_in.import_with_stand_in(module_name, _importable(_FIRST))
    except Exception as exc:
        raise ImplementationError(
            f"--backend {spec}: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        ) from exc
    found = getattr(module, attribute, None)
    if not isinstance(found, type):
        raise ImplementationError(f"--backend {spec}: {module_name!r} has no class {attribute!r}")
    if not any(hook in vars(k) for k in found.__mro__ for hook in HOOK_NAMES):
        raise ImplementationError(
            f"--backend {spec}: {attribute} has none of the hooks {', '.join(HOOK_NAMES)}"
        )
    return found


def _importable(names: Sequence[str]) -> list[str]:
    """Those of ``names`` whose top package is installed (a backend that needs none of them
    imports without them)."""
    import importlib.util

    return [n for n in names if importlib.util.find_spec(n.partition(".")[0]) is not None]


def _version(backend: type) -> str:
    """The version of the distribution that ships the backend's module, else "unknown"."""
    top = backend.__module__.partition(".")[0]
    for dist in importlib.metadata.packages_distributions().get(top, []):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            return importlib.metadata.version(dist)
    return "unknown"


class _Around:
    """The surrounding implementation's classes in ExecuTorch's modules while a hook runs."""

    def __init__(self, around: Implementation) -> None:
        self._around = around

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        if self._around.name == "executorch":
            yield
            return
        from .substitution import CLASS_NAMES, classes_of, substituted

        try:
            cord = importlib.import_module("executorch.exir._serialize._cord")
            named = importlib.import_module("executorch.exir._serialize._named_data_store")
            serializer = importlib.import_module("executorch.exir._serialize.data_serializer")
        except ImportError:  # a backend outside ExecuTorch: nothing of ExecuTorch's to replace
            yield
            return
        originals = {
            "Cord": cord.Cord,
            "FileBackedData": getattr(cord, "FileBackedData", None),
            "NamedDataStore": named.NamedDataStore,
            "NamedDataStoreOutput": named.NamedDataStoreOutput,
            "DataEntry": serializer.DataEntry,
        }
        present = {n: c for n, c in originals.items() if isinstance(c, type)}
        replacements = {n: c for n, c in classes_of(self._around).items() if n in CLASS_NAMES}
        with substituted(present, replacements):
            yield


class _Lowering:
    """The surrounding implementation's lowering; the copy hook judged (HOOK-COPY-1) is the
    backend's."""

    def __init__(self, backend: type, lowering: Lowering, around: _Around) -> None:
        self._backend = backend
        self._lowering = lowering
        self._around = around

    def compile_spec(self, key: str, value: bytes) -> object:
        return self._lowering.compile_spec(key, value)

    def default_copy(self, program: T, compile_specs: Sequence[object]) -> T:
        with self._around():
            copied: T = getattr(self._backend, COPY)(program, list(compile_specs))
        return copied

    def lower(
        self, submodules: Submodules, copy_hook: CopyHook | None, preprocess: Preprocess
    ) -> None:
        """Lower with ``copy_hook``, or with the backend's own copy hook where the suite asks for
        the backend's (None): the copy lowering makes is then the backend's."""
        if copy_hook is None:
            copy_hook = self.default_copy
        self._lowering.lower(submodules, copy_hook, preprocess)


class _Weights:
    """The backend's weights hooks, called as the suite's default-hook tests call them."""

    def __init__(self, backend: type, around: _Around) -> None:
        self._backend = backend
        self._around = around

    def materialize(self, paths: T, compile_specs: Sequence[object]) -> T:
        with self._around():
            result: T = getattr(self._backend, MATERIALIZE)(paths, list(compile_specs))
        return result

    def load(self, blob_path: str, compile_specs: Sequence[object]) -> tuple[object, str]:
        with self._around():
            data, digest = getattr(self._backend, LOAD)(blob_path, list(compile_specs))
        return data, str(digest)


class _LowMemory:
    """The backend's low-memory hooks through the ExecuTorch adapter's driver, with the
    surrounding implementation's classes in place while they run."""

    def __init__(self, driver: LowMemoryWeights, around: _Around) -> None:
        self._driver = driver
        self._around = around

    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        with self._around():
            return self._driver.materialize(so_path, chunks)

    def load(self, blob_path: str) -> tuple[object, str]:
        with self._around():
            return self._driver.load(blob_path)

    def mode(self, values: Sequence[bytes]) -> bool:
        with self._around():
            return self._driver.mode(values)


def _low_memory(backend: type, origins: dict[str, Origin]) -> LowMemoryWeights | str:
    """A low-memory driver for ``backend``, or why it has no low-memory mode of its own; a driver
    that cannot be built fails every use, naming the error."""
    weights = [origins[h] for h in (MATERIALIZE, LOAD) if h in origins]
    if all(o.owner == "AotiBackend" for o in weights):
        inherited = " and ".join(o.hook for o in weights) or "no weights hook"
        return (
            f"{backend.__name__} has no low-memory mode of its own: {inherited} inherited "
            "from AotiBackend, which reads the blob into memory (HOOK-LOAD-1)"
        )
    try:
        from .executorch import _LowMemory as Driver

        return cast(LowMemoryWeights, Driver(backend))
    except Exception as exc:
        return cast(LowMemoryWeights, undrivable.Undrivable(backend.__module__, exc))


def label(backend: type) -> str:
    """The report's name for ``backend``: the class, its module, and each hook's origin."""
    origins = hook_origins(backend)
    hooks = "; ".join(f"{h}: {o.describe()}" for h, o in origins.items())
    return f"{backend.__name__} ({backend.__module__}; {hooks})"


def load(spec: str, around: Implementation) -> Implementation:
    """``around`` with its hooks replaced by the backend class's (``package.module:Class``)."""
    backend = import_backend(spec)
    origins = hook_origins(backend)
    wrap = _Around(around)
    absent: dict[Capability, str] = dict(around.absent)
    absent[Capability.WEIGHTS_KEY] = (
        f"{backend.__name__} stores the blob inside preprocess, which needs "
        "torch._inductor.aot_compile to run"
    )
    lowering: Lowering | None = None
    if COPY in origins and around.lowering is not None:
        lowering = _Lowering(backend, around.lowering, wrap)
    elif COPY in origins:
        absent[Capability.COPY_HOOK] = f"{around.name} has no lowering to drive the copy hook with"
    else:
        absent[Capability.COPY_HOOK] = f"{backend.__name__} has no {COPY}"
    weights: WeightsHooks | None = None
    if MATERIALIZE in origins and LOAD in origins:
        weights = _Weights(backend, wrap)
    else:
        absent[Capability.WEIGHTS_HOOKS] = f"{backend.__name__} lacks a weights hook"
    low: LowMemoryWeights | None = None
    made = _low_memory(backend, origins) if weights is not None else "no weights hooks"
    if isinstance(made, str):
        absent[Capability.LOW_MEMORY] = made
    else:
        low = _LowMemory(made, wrap)
    return dataclasses.replace(
        around,
        name=f"{label(backend)} [with {around.name} around it]",
        version=_version(backend),
        target=None,
        lowering=lowering,
        weights=weights,
        weights_store=None,
        low_memory=low,
        sweep=None,
        absent={
            **absent,
            Capability.SWEEP: "a backend run judges the hooks only",
            Capability.SUBPROCESS: "a backend run is not loaded again in a child process",
        },
    )
