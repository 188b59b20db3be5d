"""Broken implementations the conformance suite must reject: the reference with one clause broken.

Each module here (names without a leading underscore) is a *mutant*: it subclasses a reference
class and overrides one method, or wraps one hook, so that exactly one behaviour of the spec is
wrong. Its docstring starts with a machine-readable line naming the clauses it breaks::

    Breaks: NDS-MERGE-2, NDS-MERGE-3

and it exposes ``IMPLEMENTATION``, an :class:`conformance.api.Implementation` whose ``spec`` is
``tests.mutants.<module>:IMPLEMENTATION``, so that the suite's subprocess tests load it again by
name, and ``scenario(impl)``, a direct case that describes the violation it sees in any
implementation (None for none). ``tests/test_mutants.py`` runs the suite against each one and
requires a failure of a named clause; ``tests/test_demonstrations.py`` requires each scenario to
find the bug in the mutant and nothing in the reference; ``mutant_names()`` and ``breaks()`` are
what they read.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from typing import Any

from conformance.adapters import reference as reference_adapter
from conformance.api import Implementation

__all__ = ["breaks", "implementation", "mutant_names"]

_BREAKS = re.compile(r"\ABreaks: ([A-Z][A-Z0-9-]*[0-9](?:, [A-Z][A-Z0-9-]*[0-9])*)\n")


def implementation(module: str, **changes: Any) -> Implementation:
    """The reference, as its adapter presents it, with ``changes`` (classes or hooks) replaced;
    named after ``module`` and loadable again by ``--impl <module>:IMPLEMENTATION``. A replaced
    ``FileBackedData`` is the one the low-memory weights take a blob over with, too, as an
    implementation's own hooks would use its own class."""
    blob_class = changes.get("FileBackedData")
    if blob_class is not None and "low_memory" not in changes:
        from ._base import LowMemory, LowMemoryBackend

        backend = type("LowMemoryBackend", (LowMemoryBackend,), {"blob_class": blob_class})
        changes["low_memory"] = LowMemory(backend)
    return dataclasses.replace(
        reference_adapter.load(),
        name=f"mutant {module.rpartition('.')[2]}",
        target=f"{module}:IMPLEMENTATION",
        **changes,
    )


def mutant_names() -> list[str]:
    """The mutant modules of this package, by short name, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def breaks(name: str) -> tuple[str, ...]:
    """The clause ids the ``Breaks:`` line of mutant ``name``'s docstring names."""
    module = importlib.import_module(f"{__name__}.{name}")
    found = _BREAKS.match(module.__doc__ or "")
    if found is None:
        raise ValueError(f"{module.__name__}: the docstring must start with 'Breaks: ID, ...'")
    return tuple(found.group(1).split(", "))
