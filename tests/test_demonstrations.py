"""The broken implementations of ``tests/blind`` and ``tests/mutants`` are broken, each in the way
it says, without the conformance suite: each one's ``scenario`` finds its violation in it and none
in the reference. Run in the fast envs, so that a change to the reference that silently un-breaks
a mutant, or crashes it, fails here at once rather than as a wrong blame in the meta env."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

import pytest

from conformance.adapters import reference as reference_adapter
from conformance.api import Implementation
from tests import blind, mutants

NAMES = [f"blind.{n}" for n in blind.blind_names()] + [
    f"mutants.{n}" for n in mutants.mutant_names()
]
"""Every broken implementation, by its module's name under ``tests``."""


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"tests.{name}")


def test_there_are_enough() -> None:
    assert len(blind.blind_names()) >= 32


@pytest.mark.parametrize("name", blind.blind_names())
def test_header(name: str) -> None:
    """Each blind one names its clauses and profile, and exposes an implementation loadable by
    name."""
    assert blind.breaks(name)
    assert blind.profile(name) in ("core", "strict")
    impl = _module(f"blind.{name}").IMPLEMENTATION
    assert isinstance(impl, Implementation)
    assert impl.target == f"tests.blind.{name}:IMPLEMENTATION"


TIMING = {
    "blind.release_plain_lock": "its deadlock needs the collector to run the finalizer while the "
    "lock is held; in one parallel run under load no line showed it (not yet a deterministic "
    "scenario)"
}
"""Demonstrations that depend on timing, each with why: expected to show, not required to."""
NEEDS_ROOT = {"mutants.blob_directory_through_links", "mutants.owner_follows_directory_links"}
"""Demonstrations of a link owned by another user, which only root can make."""


def _marked(name: str) -> Any:
    """``name`` as a parameter, with the marks its demonstration needs."""
    marks = []
    if name in TIMING:
        marks.append(pytest.mark.xfail(strict=False, reason=TIMING[name]))
    if name in NEEDS_ROOT:
        marks.append(pytest.mark.skipif(os.geteuid() != 0, reason="needs root: " + name))
    return pytest.param(name, marks=marks)


@pytest.mark.parametrize("name", [_marked(n) for n in NAMES])
def test_demonstrates_its_bug(name: str) -> None:
    module = _module(name)
    violation = module.scenario(module.IMPLEMENTATION)
    assert isinstance(violation, str) and violation, f"{name} showed no violation"


@pytest.mark.parametrize("name", [_marked(n) for n in NAMES if n not in TIMING] + list(TIMING))
def test_reference_passes_the_same_scenario(name: str) -> None:
    violation = _module(name).scenario(reference_adapter.load())
    assert violation is None, violation
