"""Adapters: how ``--impl`` names an implementation, and how a module becomes one."""

from __future__ import annotations

import importlib
import importlib.metadata
from types import ModuleType

from .. import environment
from ..api import Implementation, ImplementationError
from .namespace import from_namespace

__all__ = ["BUILTIN", "DEFAULT", "from_namespace", "load_implementation", "selected_target"]

DEFAULT = "reference"
BUILTIN = ("reference", "executorch")


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
