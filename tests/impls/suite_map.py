"""Which suite tests exist and which clauses each names, as pytest collects them.

``collect_suite()`` runs ``pytest --collect-only`` on the installed suite, configured exactly as
``cordspec run`` configures it, in a subprocess, with this module loaded as a plugin: its
``pytest_collection_finish`` hook writes every collected item to the file named by
``CORDSPEC_SUITE_MAP``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_OUTPUT = "CORDSPEC_SUITE_MAP"


@dataclass(frozen=True)
class SuiteTest:
    """One collected suite test."""

    nodeid: str
    function: str
    """The test function's name, without parameters (what a deviation file may name)."""
    clauses: tuple[str, ...]


def pytest_collection_finish(session: pytest.Session) -> None:
    output = os.environ.get(_OUTPUT)
    if not output:
        return
    rows = [
        {
            "nodeid": item.nodeid,
            "function": getattr(item, "originalname", item.name),
            "clauses": [str(a) for m in item.iter_markers("clause") for a in m.args],
        }
        for item in session.items
    ]
    Path(output).write_text(json.dumps(rows), encoding="utf-8")


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child ``cordspec``/pytest: no PYTEST_* settings of the run that
    starts it, no CORDSPEC_IMPL, and this repository importable (for ``tests.impls``)."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "CORDSPEC_IMPL"
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env.update(extra)
    return env


def collect_suite(output: Path, profile: str = "strict") -> list[SuiteTest]:
    """The suite as ``cordspec run --profile <profile>`` collects it; ``output``: a scratch file."""
    from conformance.run.cli import pytest_args

    args = pytest_args("reference", profile, extra=["--collect-only", "-q", "-p", __name__])
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=output.parent,
        env=subprocess_env(**{_OUTPUT: str(output)}),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0 or not output.exists():
        raise AssertionError(
            f"collecting the suite failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    rows = json.loads(output.read_text(encoding="utf-8"))
    return [SuiteTest(r["nodeid"], r["function"], tuple(r["clauses"])) for r in rows]


def keyword_for(tests: list[SuiteTest], *clause_ids: str) -> str:
    """A ``-k`` expression selecting the suite tests that name any of ``clause_ids``."""
    names = sorted({t.function for t in tests if set(t.clauses) & set(clause_ids)})
    if not names:
        raise AssertionError(f"no suite test names {', '.join(clause_ids)}")
    return " or ".join(names)
