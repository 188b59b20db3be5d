"""Which suite tests exist and which clauses each names, as ``cordspec run`` collects them.

:func:`collect_suite` runs ``pytest --collect-only`` on the installed suite, configured exactly as
``cordspec run`` configures it, in a child process (so the suite's modules are imported afresh),
with this module loaded as a plugin: its ``pytest_collection_finish`` hook writes every collected
item to the file named by ``CORDSPEC_SUITE_MAP``. ``cordspec clauses --tests`` prints the result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from .. import environment
from ..profiles import Profile
from .settings import RunSettings

__all__ = ["CollectError", "SuiteTest", "collect_suite", "keyword_for"]

_OUTPUT = environment.SUITE_MAP.name


class CollectError(RuntimeError):
    """Collecting the suite failed; the message holds pytest's output."""


@dataclass(frozen=True)
class SuiteTest:
    """One collected suite test."""

    nodeid: str
    function: str
    """The test function's name, without parameters (what a deviation file may name)."""
    clauses: tuple[str, ...]
    markers: tuple[str, ...] = ()
    """The names of its markers (``clause``, ``hooks``, ...), each once."""


def pytest_collection_finish(session: pytest.Session) -> None:
    output = environment.SUITE_MAP.get()
    if not output:
        return
    rows = [
        {
            "nodeid": item.nodeid,
            "function": getattr(item, "originalname", item.name),
            "clauses": [str(a) for m in item.iter_markers("clause") for a in m.args],
            "markers": list(dict.fromkeys(m.name for m in item.iter_markers())),
        }
        for item in session.items
    ]
    Path(output).write_text(json.dumps(rows), encoding="utf-8")


def collect_suite(
    profile: Profile = "strict", impl: str = "reference", env: Mapping[str, str] | None = None
) -> list[SuiteTest]:
    """The suite as ``cordspec run --impl <impl> --profile <profile>`` collects it."""
    args = RunSettings(impl, profile).pytest_args(["--collect-only", "-q", "-p", __name__])
    with tempfile.TemporaryDirectory(prefix="cordspec-collect-") as scratch:
        output = Path(scratch, "suite.json")
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", *args],
            cwd=scratch,
            env={**(os.environ if env is None else env), _OUTPUT: str(output)},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if proc.returncode != 0 or not output.exists():
            raise CollectError(
                f"collecting the suite failed (exit {proc.returncode}):\n{proc.stdout}\n"
                f"{proc.stderr}"
            )
        rows = json.loads(output.read_text(encoding="utf-8"))
    return [
        SuiteTest(r["nodeid"], r["function"], tuple(r["clauses"]), tuple(r["markers"]))
        for r in rows
    ]


def keyword_for(tests: list[SuiteTest], *clause_ids: str) -> str:
    """A ``-k`` expression selecting the suite tests that name any of ``clause_ids``."""
    names = sorted({t.function for t in tests if set(t.clauses) & set(clause_ids)})
    if not names:
        raise ValueError(f"no suite test names {', '.join(clause_ids)}")
    return " or ".join(names)
