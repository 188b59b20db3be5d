"""The time limit that needs no help from the implementation: in a pytest-xdist worker, a suite
test still running ``grace`` seconds after its limit (pytest-timeout's one-shot SIGALRM exception
was swallowed, by a wait loop or a clean-up that retries) is reported failed as hung, and the
worker process is ended; xdist starts a new one for the rest of the run. A deadlocked
implementation costs its test's clauses, never the run's verdict."""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
import time
from collections.abc import Generator

import pytest

from .report import FAILURE_PROPERTY

__all__ = ["GRACE", "HUNG_EXIT", "Watchdog", "grace_for"]

GRACE = 5.0
"""Seconds past a test's limit, at least, before its worker is ended (the limit's exception and
the implementation's clean-up get that long)."""
HUNG_EXIT = 70
"""The worker's exit status when the watchdog ends it."""
_FLUSH = 1.0
"""Seconds given to the report to reach the controller before the worker ends."""


def grace_for(limit: float) -> float:
    """How long after ``limit`` a test's worker is ended: :data:`GRACE`, or half the limit."""
    return max(GRACE, limit / 2)


class Watchdog:
    """Arms a timer over each suite test that carries a time limit (a ``timeout`` marker), in an
    xdist worker only: without xdist, ending the process would end the run."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        marker = item.get_closest_marker("timeout")
        limit = float(marker.args[0]) if marker is not None and marker.args else 0.0
        if not limit or not hasattr(item.config, "workerinput"):
            yield
            return
        done = threading.Event()
        watcher = threading.Thread(
            target=_watch, args=(item, limit, done), name="cordspec-watchdog", daemon=True
        )
        watcher.start()
        try:
            yield
        finally:
            done.set()


def _watch(item: pytest.Item, limit: float, done: threading.Event) -> None:
    waited = limit + grace_for(limit)
    if done.wait(waited):
        return
    said = (
        f"hung after {limit:g} s (still running {waited:g} s after it began: the limit's "
        "exception was swallowed, and the worker process was ended)"
    )
    report = pytest.TestReport(
        nodeid=item.nodeid,
        location=item.location,
        keywords={},
        outcome="failed",
        longrepr=f"{said}; the stacks of its threads are in the worker's stderr",
        when="call",
        user_properties=[*item.user_properties, (FAILURE_PROPERTY, said)],
    )
    item.ihook.pytest_runtest_logreport(report=report)
    sys.stderr.write(f"cordspec: {item.nodeid} {said}\n")
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    sys.stderr.flush()
    time.sleep(_FLUSH)
    os._exit(HUNG_EXIT)
