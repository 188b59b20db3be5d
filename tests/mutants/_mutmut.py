"""A pytest plugin for ``tox -e mutation`` (mutmut, ``[tool.mutmut]`` in pyproject.toml).

- mutmut runs each mutant against only the tests that call the mutated function, so most clauses
  go untested and the cordspec plugin would fail every such run for its verdict alone, which
  mutmut would count as a kill. Here a run fails only when a test fails.
- mutmut first runs the tests once with ``MUTANT_UNDER_TEST=stats`` to record which tests call
  which function. In that mode the trampolines of the mutated reference read mutmut's
  configuration from the current directory, which the suite's child interpreters (exit, fork and
  signal tests, run in a test's temporary directory) do not have. The parent keeps its stats mode
  in mutmut's process-local copy; the variable is removed so that children run the reference
  unmutated and unrecorded. When a mutant is under test the variable stays, so children run it.
- mutmut calls ``pytest.main`` again and again in one process, and in processes forked from it;
  a test module imported by an earlier call would be reused, with whatever state it kept. A
  Hypothesis test method remembers the instance it last ran on, and fails its
  ``differing_executors`` health check when a later session runs it on another one: every mutant
  would be "killed" by that. So each session imports the test modules afresh.
- The tests that interrupt at each *line* a call runs (and fork at each line) are deselected: a
  trampoline of mutmut puts lines of its own around every call of the mutated reference, and an
  interrupt in those lands outside any code of the reference (after its deferred-SIGINT section
  has returned, before the caller holds the result), which the reference cannot defer and the
  real reference never runs. The same clauses are checked at each OS call (the ``calls`` cases).
- It registers the Hypothesis profile ``cordspec-mutmut``: the suite's ``ci`` profile,
  derandomized so that a mutant's verdict does not depend on luck.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "cordspec-mutmut",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        del os.environ["MUTANT_UNDER_TEST"]
    for name, module in list(sys.modules.items()):
        if os.path.basename(getattr(module, "__file__", None) or "").startswith("test_"):
            del sys.modules[name]


LINE_STEPPED = (
    "[lines",
    "test_store_interrupts.py",
    "_at_each_line_",
    "_forks_during_moves",
    "test_campaign_of_interrupted_",  # its campaigns run in both modes
)
"""Node-id fragments of the tests that step through every line a call runs (see above)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    dropped = [i for i in items if any(part in i.nodeid for part in LINE_STEPPED)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if i not in dropped]


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    result = yield
    if session.exitstatus == pytest.ExitCode.TESTS_FAILED and not session.testsfailed:
        session.exitstatus = pytest.ExitCode.OK
    return result
