"""How a module exposing the five classes (like ``reference``) becomes an
:class:`~conformance.api.Implementation`."""

from __future__ import annotations

import importlib.metadata
from types import ModuleType
from typing import cast

from ..api import (
    Capability,
    FileBackedData,
    FileBackedDataClass,
    Implementation,
    ImplementationError,
    MissingFileBackedData,
)

__all__ = ["from_namespace"]

_REQUIRED = ("Cord", "NamedDataStore", "NamedDataStoreOutput", "DataEntry")
"""What a module must expose; ``FileBackedData`` is an optional part (SPEC.md section 1.1)."""


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
