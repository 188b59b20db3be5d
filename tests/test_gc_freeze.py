"""The frozen heap of a ``cordspec run`` (conformance.harness.gc_freeze): what a test that must see
every object still sees, and which runs freeze."""

from __future__ import annotations

import gc
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from conformance.harness.gc_freeze import INI, FrozenHeap, all_objects


def test_all_objects_includes_what_was_frozen() -> None:
    """A container made before the freeze (an implementation's module-level map) is found."""
    held = ["marker-of-this-test"]  # a list: always tracked (a dict of strings may not be)
    gc.freeze()
    try:
        assert not any(o is held for o in gc.get_objects())  # what the freeze hides
        assert any(o is held for o in all_objects())
        # thawed for good: the collector sees it again (not get_freeze_count(), which CPython
        # 3.12.1 reports non-zero after unfreeze() and a collection)
        assert any(o is held for o in gc.get_objects())
    finally:
        gc.unfreeze()


@pytest.mark.parametrize(
    ("inipath", "active"), [(INI, True), (None, False), (Path("tox.ini"), False)]
)
def test_only_cordspec_runs_freeze(inipath: Path | None, active: bool) -> None:
    """A user's own pytest session, which loads the plugin too, keeps its collector as it was."""
    config = cast(pytest.Config, SimpleNamespace(inipath=inipath))
    assert FrozenHeap(config).active is active
