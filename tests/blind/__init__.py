"""Broken implementations written from the spec alone, without reading the conformance suite.

Each module here (names without a leading underscore) is the reference with one realistic porting
bug, like the mutants of ``tests/mutants``, written to measure how much of the spec the suite
checks: its docstring starts with ``Breaks: CLAUSE-ID, ...``, then ``Profile: core`` or
``Profile: strict`` (the profile whose verdict it must fail), then the bug. Each exposes
``IMPLEMENTATION`` (loadable by ``--impl tests.blind.<name>:IMPLEMENTATION``) and proves itself
broken without the suite: ``scenario(impl)`` runs a small case against any implementation and
describes the violation it sees (None when it sees none). ``tests/test_demonstrations.py``
checks that each demonstrates its bug and that the reference passes the same scenario.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from collections.abc import Callable
from typing import Any

from conformance.adapters import reference as reference_adapter
from conformance.api import Implementation

__all__ = ["blind_names", "breaks", "implementation", "profile", "reference_with"]

_BREAKS = re.compile(
    r"\ABreaks: ([A-Z][A-Z0-9-]*[0-9](?:, [A-Z][A-Z0-9-]*[0-9])*)\nProfile: (core|strict)\n"
)


def reference_with(
    kind: str, module: str, low_memory: Callable[[type], object], changes: dict[str, Any]
) -> Implementation:
    """The reference, as its adapter presents it, with ``changes`` replaced; named ``kind`` and
    ``module``'s short name, loadable again by ``--impl <module>:IMPLEMENTATION``. A replaced
    ``FileBackedData`` is also the class the low-memory weights (``low_memory(blob_class)``) take
    a blob over with, as a port's own hooks would use its own class."""
    blob_class = changes.get("FileBackedData")
    if blob_class is not None and "low_memory" not in changes:
        changes["low_memory"] = low_memory(blob_class)
    return dataclasses.replace(
        reference_adapter.load(),
        name=f"{kind} {module.rpartition('.')[2]}",
        target=f"{module}:IMPLEMENTATION",
        **changes,
    )


def implementation(module: str, **changes: Any) -> Implementation:
    """The reference with ``changes`` replaced (``reference_with``), a blind port named after
    ``module``."""
    return reference_with("blind", module, _low_memory, changes)


def _low_memory(blob_class: type) -> object:
    from ._support import LowMemory, low_memory_backend

    return LowMemory(low_memory_backend(blob_class))


def blind_names() -> list[str]:
    """The broken implementations of this package, by short name, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def _header(name: str) -> re.Match[str]:
    module = importlib.import_module(f"{__name__}.{name}")
    found = _BREAKS.match(module.__doc__ or "")
    if found is None:
        raise ValueError(
            f"{module.__name__}: the docstring must start with 'Breaks: ID, ...' and 'Profile: ...'"
        )
    return found


def breaks(name: str) -> tuple[str, ...]:
    """The clause ids the ``Breaks:`` line of ``name``'s docstring names."""
    return tuple(_header(name).group(1).split(", "))


def profile(name: str) -> str:
    """The profile whose verdict ``name`` must fail (``core`` or ``strict``)."""
    return _header(name).group(2)
