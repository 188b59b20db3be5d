"""Adapters: how ``--impl`` names an implementation, and how a module becomes one."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
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

__all__ = ["BUILTIN", "DEFAULT", "from_namespace", "load_implementation", "selected_spec"]

DEFAULT = "reference"
BUILTIN = ("reference", "executorch")
_REQUIRED = ("Cord", "NamedDataStore", "NamedDataStoreOutput", "DataEntry")
"""What a module must expose; ``FileBackedData`` is an optional part (SPEC.md section 1.1)."""


def selected_spec(option: str | None) -> str:
    """The implementation to test: ``--impl``, else ``$CORDSPEC_IMPL``, else the reference."""
    return option or os.environ.get("CORDSPEC_IMPL") or DEFAULT


def load_implementation(spec: str) -> Implementation:
    """Load ``reference``, ``executorch``, ``package.module`` or ``package.module:object``."""
    if spec == "reference":
        from . import reference

        return reference.load()
    if spec == "executorch":
        from . import executorch

        return executorch.load()
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImplementationError(
            f"cannot import {module_name!r} for --impl {spec}: {exc}"
        ) from exc
    if not attribute:
        return from_namespace(module, spec)
    try:
        target = getattr(module, attribute)
    except AttributeError:
        raise ImplementationError(f"{module_name!r} has no attribute {attribute!r}") from None
    if isinstance(target, Implementation):
        return target
    if isinstance(target, ModuleType):
        return from_namespace(target, spec)
    if callable(target):
        made = target()
        if isinstance(made, Implementation):
            return made
        raise ImplementationError(
            f"{spec} returned {type(made).__name__}, not a conformance.api.Implementation"
        )
    raise ImplementationError(f"{spec} is a {type(target).__name__}, not an implementation")


def _path_of(blob: FileBackedData) -> str:
    path = getattr(blob, "path", None)
    if not isinstance(path, str):
        path = getattr(blob, "_path", None)
    if not isinstance(path, str):
        raise ImplementationError(f"cannot tell where {blob!r} keeps its file (no .path or ._path)")
    return path


def from_namespace(namespace: ModuleType, spec: str | None) -> Implementation:
    """An implementation from a module exposing the five classes, like ``reference``."""
    missing = [name for name in _REQUIRED if not hasattr(namespace, name)]
    if missing:
        raise ImplementationError(
            f"{spec or namespace.__name__} is not an implementation: it lacks {', '.join(missing)}"
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
        spec=spec,
        file_backed=file_backed,
        absent=absent,
    )
