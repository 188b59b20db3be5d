"""What a ``cordspec run`` made before its first test, kept out of the garbage collector's way.

The suite collects garbage in full often (before each memory measurement, after each test on a
fake filesystem, before counting OS calls, ...): about 35 ms each over what pytest, Hypothesis,
the suite's modules and the reference leave alive, more over torch. Under ``cordspec run`` the
process that runs the tests loads the implementation, then freezes everything alive
(``gc.freeze``) before the first test: a collection then walks only what tests made, which is all
that a test's collection is there to find. A test that must see every object (a container made at
the implementation's import that still names what it should have forgotten) takes them through
:func:`all_objects`, which undoes the freeze; the next test's teardown freezes again.
"""

from __future__ import annotations

import gc
from collections.abc import Generator
from pathlib import Path

import pytest

__all__ = ["FrozenHeap", "all_objects"]

INI = Path(__file__).parents[1] / "cordspec.ini"
"""``cordspec run``'s pytest configuration: a run with it is the suite's own."""

_thawed = False
"""Whether :func:`all_objects` undid the freeze since the plugin last froze."""


def all_objects() -> list[object]:
    """Every object the collector tracks, frozen ones included, after a full collection: what
    ``gc.get_objects()`` returns in a process that froze nothing."""
    global _thawed
    if gc.get_freeze_count():
        gc.unfreeze()
        _thawed = True
    gc.collect()
    return gc.get_objects()


def _freeze() -> None:
    global _thawed
    gc.collect()
    gc.freeze()
    _thawed = False


class FrozenHeap:
    """pytest plugin: freeze what is alive before the first test of a run with :data:`INI` as
    its configuration (``cordspec run``'s, so that a user's own pytest session is left alone), and
    again after a test that thawed it; thaw at the end of the session."""

    def __init__(self, config: pytest.Config) -> None:
        inipath = config.inipath
        self.active = inipath is not None and Path(inipath).resolve() == INI.resolve()
        self.frozen = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        if not self.active or not session.items:
            return
        # the run's settings loaded the implementation at configure time, in this process too:
        # what its import made is frozen with the rest
        _freeze()
        self.frozen = True

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self) -> Generator[None, None, None]:
        yield
        if self.frozen and _thawed:
            _freeze()

    def pytest_sessionfinish(self) -> None:
        if self.frozen:  # a run in a process that goes on (main() called in-process)
            gc.unfreeze()
            self.frozen = False
