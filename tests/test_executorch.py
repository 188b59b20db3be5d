"""The README's commands against the installed ExecuTorch, run as a user runs them (``tox -e
executorch`` runs this module): every one gives a verdict, the deviations file declares nothing
that 1.5.1 meets, and ``docs/executorch-1.5.1.md`` is what a run reports today.

Skipped where ExecuTorch is not installed (the default environments).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from conformance.run.deviations import builtin_deviations_path
from tests.children import REPO, shared_runs, subprocess_env

NEEDS_EXECUTORCH = pytest.mark.skipif(
    importlib.util.find_spec("executorch") is None,
    reason="ExecuTorch is not installed here: tox -e executorch installs 1.5.1 (torch 2.13.0 CPU) "
    "and runs these",
)
Runs = dict[str, tuple[Path, int, str]]
T = TypeVar("T", bound=Callable[..., None])


def of_a_run(test: T) -> T:
    """Marks a test of the runs below: ``meta``, for it runs the suite in child processes, and
    skipped where ExecuTorch is not installed."""
    marked: T = pytest.mark.meta(NEEDS_EXECUTORCH(test))
    return marked


COMMITTED = REPO / "docs" / "executorch-1.5.1.md"
REGENERATE = "cordspec run --impl executorch --profile strict --report docs/executorch-1.5.1.md"
"""How the committed report is made (the README's command for ExecuTorch's report)."""
MET = ("FBD-CLOSE-5", "HOOK-MAT-2", "HOOK-LOW-1")
"""Clauses 1.5.1 meets, whose tests fail only at other clauses' checks."""
CORE_DEVIATIONS = 9
"""The most core clauses 1.5.1 may deviate in: those the deviations file declares today (FBD-MOVE-2
among them: a placeholder made through a linked directory then '..', found by the path forms; and
FBD-READ-1 and NDS-DEDUP-3, judged where files report a large block size)."""
UNOBSERVED = {"FBD-READ-2", "FBD-HASH-1", "FBD-FAULT-1"}
"""The core clauses the suite cannot judge in 1.5.1, untested and never passed: their faults after
a system call took effect are injected through Python's ``os``, which 1.5.1's reads through
``open()`` never call, and no fault below Python can come after a call took effect."""


def _statuses(data: dict[str, Any], profile: str) -> dict[str, str]:
    """Each clause of ``profile`` (core: the core clauses alone) and its status."""
    return {
        c["id"]: c["status"]
        for c in data["clauses"]
        if profile == "strict" or c["profile"] == "core"
    }


def _argvs(over: Path) -> dict[str, list[str]]:
    run = [sys.executable, "-m", "conformance", "run", "--impl", "executorch"]
    return {
        "strict": [*run, "--profile", "strict", "--report", "report.md", "--report", "r.json"],
        "core": [*run, "--profile", "core", "--report", "r.json"],
        "vectors": [*run, "--report", "r.json", "--", "-k", "test_vector and (042 or 048 or 001)"],
        "over": [*run, "--deviations", str(over), "--clause", "HOOK-MAT-2", "--report", "r.json"],
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Each run once: its directory, exit status and output."""
    over = tmp_path_factory.mktemp("over") / "executorch.deviations"
    declared = builtin_deviations_path("executorch").read_text(encoding="utf-8")
    over.write_text(f"{declared}\nHOOK-MAT-2  said to fail, which it does not\n", "utf-8")
    plugins = {k: v for k, v in os.environ.items() if k == "PYTEST_PLUGINS"}
    env = subprocess_env(CORDSPEC_WORKERS="2", COLUMNS="100", **plugins)
    # a user's plain run, as the committed report was made: under CI's ``ci`` profile Hypothesis
    # draws other examples, and a property test may meet another deviation first
    env.pop("CI", None)
    done = shared_runs(tmp_path_factory, "executorch", _argvs(over), env=env)
    return {name: (path, p.returncode, p.stdout + p.stderr) for name, (path, p) in done.items()}


def _report(run: tuple[Path, int, str]) -> dict[str, Any]:
    path, status, out = run
    assert (path / "r.json").is_file(), f"exit {status}, no report:\n{out[-3000:]}"
    data: dict[str, Any] = json.loads((path / "r.json").read_text("utf-8"))
    return data


@of_a_run
def test_the_core_run_gives_a_verdict(runs: Runs) -> None:
    """The strict vectors' cases the deviations file names are left out of a core run: not run,
    never deviations that match nothing."""
    _, status, out = runs["core"]
    assert "match nothing" not in out, out[-3000:]
    data = _report(runs["core"])
    verdict = data["verdicts"]["core"]
    statuses = _statuses(data, "core")
    # what keeps 1.5.1 from conforming is only what the suite cannot see in it, said as such
    assert {c for c, s in statuses.items() if s == "untested"} == UNOBSERVED, verdict
    assert "failed" not in statuses.values() and "deviation fixed" not in statuses.values()
    assert (status, verdict["result"]) == (1, "does-not-conform"), out[-3000:]
    assert verdict["deviations"] <= CORE_DEVIATIONS, verdict


@of_a_run
def test_a_run_of_some_vectors_is_partial_and_conforms(
    runs: Runs,
) -> None:
    _, status, out = runs["vectors"]
    assert "match nothing" not in out, out[-3000:]
    assert status == 4, out[-3000:]  # a partial run that conformed on what it ran
    assert _report(runs["vectors"])["partial"]


@of_a_run
def test_the_strict_run_declares_nothing_that_is_met(
    runs: Runs,
) -> None:
    _, status, out = runs["strict"]
    data = _report(runs["strict"])
    status_of = {c["id"]: c["status"] for c in data["clauses"]}
    unseen = {c["id"]: c["reason"] for c in data["clauses"] if c["status"] == "untested"}
    assert all("unobserved: " in why for why in unseen.values()), unseen
    assert "failed" not in status_of.values(), out[-3000:]
    assert status == (1 if unseen else 0), out[-3000:]
    assert {c: status_of[c] for c in MET} == {
        c: status_of[c] for c in MET if status_of[c] in ("passed", "masked")
    }
    assert data["verdicts"]["core"]["deviations"] <= CORE_DEVIATIONS
    assert "deviation fixed" not in status_of.values()


@of_a_run
def test_an_over_declared_clause_fails_the_run(runs: Runs) -> None:
    """HOOK-MAT-2's tests fail only at HOOK-BLOB-1's check of the blob: declared, it reads
    "deviation fixed", never "expected deviation"."""
    _, status, out = runs["over"]
    data = _report(runs["over"])
    clause = next(c for c in data["clauses"] if c["id"] == "HOOK-MAT-2")
    assert clause["status"] == "deviation fixed", clause
    assert status == 1, out[-3000:]


_VARYING = [
    (re.compile(r"^\| Date \| .* \|$", re.M), "| Date | (date) |"),
    (re.compile(r"^\| cordspec \| .* \|$", re.M), "| cordspec | (version) |"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?"), "(time)"),
    (re.compile(r"(?:/private)?(?:/tmp|/var/folders)/[^\s'\")|,:]+"), "(path)"),
    (re.compile(r"\.executorch_[A-Za-z0-9_-]+\.data"), ".executorch_(random).data"),
    (re.compile(r"\b\d+(?:\.\d+)? ?(?:s|ms|seconds)\b"), "(duration)"),
]
"""What differs between two runs of one implementation: when, which cordspec, temporary paths
and random names, durations."""
FIRST_MET = ("suite/test_store_machine.py::TestStoreMachine::test_strict_store_machine",)
"""Property-based tests that meet several of 1.5.1's declared deviations, of which the report names
the first one their examples meet: Hypothesis mixes constants of the modules loaded so far into
what it draws, so with the seed fixed the examples still depend on which tests a worker ran
before. Their rows keep their status; the reason is not compared."""


def normalized(markdown: str) -> str:
    """A Markdown report without what differs from one run to the next."""
    for pattern, replacement in _VARYING:
        markdown = pattern.sub(replacement, markdown)
    for nodeid in FIRST_MET:
        row = re.compile(rf"^(\| `{re.escape(nodeid)}` \| expected deviation \| ).*\|$", re.M)
        markdown = row.sub(r"\1(the first declared deviation its examples meet) |", markdown)
    return markdown


@of_a_run
def test_the_committed_report_is_what_a_run_reports(
    runs: Runs,
) -> None:
    path, _, _ = runs["strict"]
    fresh = normalized((path / "report.md").read_text("utf-8"))
    committed = normalized(COMMITTED.read_text("utf-8"))
    if fresh != committed:
        import difflib

        diff = "\n".join(
            difflib.unified_diff(
                committed.splitlines(), fresh.splitlines(), "committed", "fresh", lineterm=""
            )
        )
        pytest.fail(f"{COMMITTED.name} is not what a run reports; run {REGENERATE}\n{diff}")


def test_normalized_keeps_the_status_of_a_test_that_meets_several_deviations() -> None:
    row = f"| `{FIRST_MET[0]}` | expected deviation | NDS-ADD-6: keys are not type-checked |"
    same = normalized(row.replace("NDS-ADD-6: keys are not type-checked", "NDS-OUT-3: aliases"))
    assert normalized(row) == same != normalized(row.replace("expected deviation", "failed"))


def test_normalized_keeps_what_a_verdict_says() -> None:
    text = "| Date | 2026-12-02T09:05:10+00:00 |\n- **core**: CONFORMS (84/84)\n"
    assert normalized(text) == "| Date | (date) |\n- **core**: CONFORMS (84/84)\n"
    assert normalized("left /tmp/pytest-of-x/t0/a.bin, .executorch_ab12cd34.data") == (
        "left (path), .executorch_(random).data"
    )
