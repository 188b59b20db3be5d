"""The broken implementations of ``tests/blind`` and ``tests/mutants`` are broken, each in the way
it says, without the conformance suite: each one's ``scenario`` finds its violation in it and none
in the reference. Run in the fast envs, so that a change to the reference that silently un-breaks
a mutant, or crashes it, fails here at once rather than as a wrong blame in the meta env."""

from __future__ import annotations

import importlib
from types import ModuleType

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


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=False, reason=TIMING[n]))
        if n in TIMING
        else n
        for n in NAMES
    ],
)
def test_demonstrates_its_bug(name: str) -> None:
    module = _module(name)
    violation = module.scenario(module.IMPLEMENTATION)
    assert isinstance(violation, str) and violation, f"{name} showed no violation"


@pytest.mark.parametrize("name", NAMES)
def test_reference_passes_the_same_scenario(name: str) -> None:
    violation = _module(name).scenario(reference_adapter.load())
    assert violation is None, violation
