"""A pytest plugin for ``tests/test_mutants.py``, loaded into a ``cordspec run`` with
``-- -p tests.mutants._select``.

- With ``$CORDSPEC_SELECT_CLAUSES`` (clause ids, space-separated), it keeps only the suite tests
  that name one of those clauses and deselects the rest: the clause report then gives those
  clauses their full results and calls every other clause "untested".
- With ``$CORDSPEC_SUITE_MAP`` (a path), it writes there, as JSON, every collected test's node id
  and clauses (run it with ``--collect-only``).
- It registers the Hypothesis profile ``PROFILE`` (``--hypothesis-profile cordspec-mutants``):
  derandomized, fewer examples, and no shrink phase, which only makes a failing example smaller
  and can take minutes against a mutant that fails every example.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

from conformance.run.plugin import clause_ids

VARIABLE = "CORDSPEC_SELECT_CLAUSES"
MAP_VARIABLE = "CORDSPEC_SUITE_MAP"
PROFILE = "cordspec-mutants"

settings.register_profile(
    PROFILE,
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=25,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(os.environ.get(VARIABLE, "").split())
    if not wanted:
        return
    keep = [item for item in items if wanted & set(clause_ids(item))]
    dropped = [item for item in items if not wanted & set(clause_ids(item))]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    output = os.environ.get(MAP_VARIABLE)
    if output:
        rows = {item.nodeid: clause_ids(item) for item in session.items}
        Path(output).write_text(json.dumps(rows), encoding="utf-8")
