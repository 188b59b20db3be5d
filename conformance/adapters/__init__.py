"""Adapters: how ``--impl`` names an implementation, and how a module becomes one."""

from __future__ import annotations

import importlib
import importlib.metadata
from types import ModuleType
from typing import cast

from .. import environment
from ..api import (
    Capability,
    FileBackedData,
    FileBackedDataClass,
    Implementation,
    ImplementationError,
    MissingFileBackedData,
)

__all__ = ["BUILTIN", "DEFAULT", "from_namespace", "load_implementation", "selected_target"]

DEFAULT = "reference"
BUILTIN = ("reference", "executorch")
_REQUIRED = ("Cord", "NamedDataStore", "NamedDataStoreOutput", "DataEntry")
"""What a module must expose; ``FileBackedData`` is an optional part (SPEC.md section 1.1)."""


def selected_target(option: str | None) -> str:
    """The implementation to test: ``--impl``, else ``$CORDSPEC_IMPL``, else the reference."""
    return option or environment.IMPL.get() or DEFAULT


_loaded: dict[str, Implementation] = {}


def load_implementation(target: str) -> Implementation:
    """Load ``reference``, ``executorch``, ``package.module`` or ``package.module:object``, once
    per process: ``cordspec run`` checks it, then the ``impl`` fixture and the report use it."""
    if target not in _loaded:
        _loaded[target] = _load(target)
    return _loaded[target]


def _load(target: str) -> Implementation:
    if target == "reference":
        from . import reference

        return reference.load()
    if target == "executorch":
        from . import executorch

        return executorch.load()
    from . import backend

    judged = backend.parse_target(target)
    if judged is not None:
        return backend.load(judged[0], load_implementation(judged[1]))
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImplementationError(
            f"cannot import {module_name!r} for --impl {target}: {exc}"
        ) from exc
    if not attribute:
        return from_namespace(module, target)
    try:
        found = getattr(module, attribute)
    except AttributeError:
        raise ImplementationError(f"{module_name!r} has no attribute {attribute!r}") from None
    if isinstance(found, Implementation):
        return found
    if isinstance(found, ModuleType):
        return from_namespace(found, target)
    if callable(found):
        made = found()
        if isinstance(made, Implementation):
            return made
        raise ImplementationError(
            f"{target} returned {type(made).__name__}, not a conformance.api.Implementation"
        )
    raise ImplementationError(f"{target} is a {type(found).__name__}, not an implementation")


def _path_of(blob: FileBackedData) -> str:
    path = getattr(blob, "path", None)
    if not isinstance(path, str):
        path = getattr(blob, "_path", None)
    if not isinstance(path, str):
        raise ImplementationError(f"cannot tell where {blob!r} keeps its file (no .path or ._path)")
    return path


def _loaders(namespace: ModuleType) -> list[str]:
    """The names in ``namespace`` that ``--impl module:name`` could mean: an ``Implementation``,
    or a function of the module annotated to return one (a forgotten ``:load``)."""
    found = []
    for name, value in vars(namespace).items():
        returns = getattr(value, "__annotations__", {}).get("return") if callable(value) else None
        own = getattr(value, "__module__", None) == namespace.__name__
        if isinstance(value, Implementation) or (
            own and returns is not None and "Implementation" in str(returns)
        ):
            found.append(name)
    return found


def from_namespace(namespace: ModuleType, target: str | None) -> Implementation:
    """An implementation from a module exposing the five classes, like ``reference``."""
    missing = [name for name in _REQUIRED if not hasattr(namespace, name)]
    if missing:
        name = target or namespace.__name__
        hint = "".join(
            f"; did you mean --impl {namespace.__name__}:{c}?" for c in _loaders(namespace)
        )
        raise ImplementationError(
            f"{name} is not an implementation: it lacks {', '.join(missing)}{hint}"
        )
    top = namespace.__name__.partition(".")[0]
    try:
        version = importlib.metadata.version(top)
    except importlib.metadata.PackageNotFoundError:
        version = str(getattr(namespace, "__version__", "unknown"))
    reason = f"{namespace.__name__} provides no backend hooks"
    absent = {
        Capability.SWEEP: f"{namespace.__name__} provides no sweep",
        Capability.COPY_HOOK: reason,
        Capability.WEIGHTS_HOOKS: reason,
        Capability.WEIGHTS_KEY: reason,
        Capability.LOW_MEMORY: reason,
    }
    file_backed = hasattr(namespace, "FileBackedData")
    if not file_backed:
        absent[Capability.FILE_BACKED] = f"{namespace.__name__} has no FileBackedData"
    return Implementation(
        name=namespace.__name__,
        version=version,
        Cord=namespace.Cord,
        FileBackedData=(
            namespace.FileBackedData
            if file_backed
            else cast(FileBackedDataClass, MissingFileBackedData)
        ),
        NamedDataStore=namespace.NamedDataStore,
        NamedDataStoreOutput=namespace.NamedDataStoreOutput,
        DataEntry=namespace.DataEntry,
        path_of=_path_of,
        target=target,
        file_backed=file_backed,
        absent=absent,
    )
