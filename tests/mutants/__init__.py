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

import importlib
import pkgutil
import re
from typing import Any

from conformance.api import Implementation
from tests.blind import reference_with

__all__ = ["breaks", "implementation", "mutant_names"]

_BREAKS = re.compile(r"\ABreaks: ([A-Z][A-Z0-9-]*[0-9](?:, [A-Z][A-Z0-9-]*[0-9])*)\n")


def implementation(module: str, **changes: Any) -> Implementation:
    """The reference with ``changes`` (classes or hooks) replaced (``tests.blind.reference_with``),
    a mutant named after ``module``. A replaced ``FileBackedData`` is the one the low-memory weights
    take a blob over with, too."""
    return reference_with("mutant", module, _low_memory, changes)


def _low_memory(blob_class: type) -> object:
    from ._base import LowMemory, LowMemoryBackend

    return LowMemory(type("LowMemoryBackend", (LowMemoryBackend,), {"blob_class": blob_class}))


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
