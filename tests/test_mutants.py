"""The suite's strength: it must reject every broken implementation in ``tests/mutants/`` by a
failure of a clause the mutant's docstring names, and pass the reference.

Each mutant runs in a child ``python -m conformance run --profile strict`` (as a user would run
the suite), limited by ``tests/mutants/_select.py`` to the suite tests that name one of the
mutant's clauses: those clauses get their full results in the JSON report, the others are left
"untested", and the run takes seconds. The reference and ``_control`` (the mutants' shared
scaffolding, unbroken) run the whole suite. These runs carry the ``meta`` marker (``tox -e meta``,
``pytest -m meta -n 2``): parametrized, so xdist runs two at a time.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance import suite
from tests.children import REPO, subprocess_env
from tests.mutants import breaks, mutant_names
from tests.mutants._select import MAP_VARIABLE, PROFILE, VARIABLE

SUITE = Path(suite.__file__).parent
SELECT = "tests.mutants._select"
TIMEOUT = 600
MUTANTS = mutant_names()
UNTESTABLE_KEYWORDS = ("SHOULD", "SHOULD NOT", "MAY")
"""A clause the suite cannot test (a serializer's duty) may be "untested" without failing."""


@dataclass(frozen=True)
class Run:
    """A finished ``cordspec run``: exit status, output and the JSON report."""

    returncode: int
    output: str
    report: dict[str, Any]

    def status(self, clause: str) -> str:
        return next(c["status"] for c in self.report["clauses"] if c["id"] == clause)

    def failed(self) -> list[str]:
        return [c["id"] for c in self.report["clauses"] if c["status"] == "failed"]

    def summary(self) -> str:
        tail = "\n".join(self.output.splitlines()[-40:])
        return f"exit {self.returncode}; failed clauses {self.failed()}\n{tail}"


def _cordspec(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args],
        cwd=REPO,
        env=subprocess_env(**env),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@functools.cache
def suite_modules() -> dict[str, frozenset[Path]]:
    """Each clause, and the suite modules whose collected tests name it (collected once)."""
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "map.json"
        done = _cordspec(
            "run", "--", "--collect-only", "-q", "-p", SELECT, **{MAP_VARIABLE: str(output)}
        )
        assert output.is_file(), f"collecting the suite failed:\n{done.stdout}{done.stderr}"
        rows: dict[str, list[str]] = json.loads(output.read_text(encoding="utf-8"))
    modules: dict[str, set[Path]] = {}
    for nodeid, clauses in rows.items():
        module = (SUITE.parent / nodeid.partition("::")[0]).resolve()
        for clause in clauses:
            modules.setdefault(clause, set()).add(module)
    return {clause: frozenset(paths) for clause, paths in modules.items()}


def run_suite(impl: str, report: Path, clauses: tuple[str, ...] = ()) -> Run:
    """Run the suite against ``impl`` (strict profile) in a child process; with ``clauses``, only
    the tests that name one of them, and only the modules that hold such tests are collected."""
    args = ["run", "--impl", impl, "--profile", "strict", "--report", str(report)]
    if clauses:
        needed = set().union(*(suite_modules().get(c, frozenset()) for c in clauses))
        ignored = sorted(p for p in SUITE.glob("test_*.py") if p.resolve() not in needed)
        args += ["--hypothesis-profile", PROFILE, "--", "-q", "-p", SELECT]
        args += [f"--ignore={p}" for p in ignored]
    else:
        args += ["--", "-q"]
    done = _cordspec(*args, **{VARIABLE: " ".join(clauses)})
    output = done.stdout + done.stderr
    assert report.is_file(), f"no report from the run against {impl}:\n{output}"
    return Run(done.returncode, output, json.loads(report.read_text(encoding="utf-8")))


def test_there_are_enough_mutants() -> None:
    assert len(MUTANTS) >= 25, MUTANTS


@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_docstring_names_known_clauses(name: str) -> None:
    from conformance.run.spec import load_spec

    named = breaks(name)
    unknown = [c for c in named if c not in load_spec().clauses]
    assert named and not unknown, f"{name}: unknown clauses {unknown}"


@pytest.mark.meta
@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_is_rejected_by_a_clause_it_breaks(name: str, tmp_path: Path) -> None:
    named = breaks(name)
    run = run_suite(f"tests.mutants.{name}:IMPLEMENTATION", tmp_path / "report.json", named)
    # Untested clauses alone make a restricted run exit non-zero: require a failed test too.
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, f"{name}: {run.summary()}"
    assert run.report["tests"]["failed"], f"{name} survived the suite: {run.summary()}"
    caught = [c for c in named if run.status(c) == "failed"]
    assert caught, f"{name} was rejected, but by none of {', '.join(named)}: {run.summary()}"


@pytest.mark.meta
@pytest.mark.parametrize("impl", ["reference", "tests.mutants._control:IMPLEMENTATION"])
def test_conforming_implementation_passes(impl: str, tmp_path: Path) -> None:
    run = run_suite(impl, tmp_path / "report.json")
    assert run.returncode == 0, run.summary()
    assert run.report["exit_ok"], run.summary()
    short = [
        (c["id"], c["status"])
        for c in run.report["clauses"]
        if c["status"] not in ("passed", "not applicable")
        and not (c["status"] == "untested" and c["keyword"] in UNTESTABLE_KEYWORDS)
    ]
    assert short == [], run.summary()
