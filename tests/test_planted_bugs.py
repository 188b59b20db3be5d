"""The state machine catches store bugs planted in mutants of the reference (three of
``tests/mutants/``) and prints each failure as a short vector: valid against the schema, agreed
with by the model, passed by the reference and failed by the mutant.

Each mutant runs the core machine in a subprocess with the ``ci`` Hypothesis profile, as a user
would (``pytest conformance/suite/test_store_machine.py
--cordspec-impl tests.mutants.x:IMPLEMENTATION``); the three run in parallel (shrinking takes
tens of seconds each).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import environment
from conformance.adapters import load_implementation
from conformance.harness.checks import ClauseFailure
from conformance.harness.vectors import Vector, VectorFailure, load_schema, replay, replay_model
from tests.children import shared_runs

pytestmark = pytest.mark.meta  # runs the suite in child processes: tox -e meta

ROOT = Path(__file__).resolve().parent.parent
MACHINE = "conformance/suite/test_store_machine.py::TestStoreMachine::test_core_store_machine"
BEGIN, END = "CORDSPEC-VECTOR-BEGIN", "CORDSPEC-VECTOR-END"
TIMEOUT = 900  # seconds per run, shrinking included, on a loaded machine
MAX_STEPS = 16
"""A printed vector a person reads: short. With outputs drawn from a Bundle (the harness's
machine), the shrunk vector of merge_rewrites_other keeps 13 steps, several of them no-op
externalizes the shrinker does not remove."""

PLANTED = {
    "merge_rewrites_other": "NDS-MERGE-2",
    "dedup_fingerprint_only": "NDS-DEDUP-2",
    "dedup_keeps_last": "NDS-DEDUP-5",
}
"""Each mutant of ``tests/mutants/`` planted in the store, and a clause its failure must name."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    """Run the machine against every planted mutant, in parallel, once per session."""
    common = ["-p", "no:cacheprovider", MACHINE, "--hypothesis-profile", "ci", "-q"]
    argvs = {
        name: [
            sys.executable,
            "-m",
            "pytest",
            *common,
            "--cordspec-impl",
            f"tests.mutants.{name}:IMPLEMENTATION",
        ]
        for name in PLANTED
    }
    env = {
        k: v for k, v in os.environ.items() if k not in (environment.IMPL.name, "PYTEST_ADDOPTS")
    }
    found = shared_runs(tmp_path_factory, "planted", argvs, cwd=ROOT, env=env, timeout=TIMEOUT)
    return {name: proc for name, (_, proc) in found.items()}


def vectors_in(output: str) -> list[dict[str, Any]]:
    """Every vector printed between the markers, without pytest's or ExceptionGroup's prefixes."""
    found: list[dict[str, Any]] = []
    lines = output.splitlines()
    for number, line in enumerate(lines):
        if line.rstrip().endswith(BEGIN):
            prefix = line[: line.index(BEGIN)]
            body: list[str] = []
            for text in lines[number + 1 :]:
                if text.rstrip().endswith(END):
                    break
                body.append(text[len(prefix) :] if text.startswith(prefix) else text)
            found.append(json.loads("\n".join(body)))
    return found


@pytest.mark.parametrize("name", PLANTED)
def test_the_machine_fails(name: str, runs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    run = runs[name]
    assert run.returncode == 1, run.stdout[-3000:]
    assert f"FAILED {MACHINE}" in run.stdout, run.stdout[-3000:]
    assert "1 failed" in run.stdout


@pytest.mark.parametrize("name", PLANTED)
def test_it_prints_a_short_vector(
    name: str, runs: dict[str, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    vectors = vectors_in(runs[name].stdout)
    assert vectors, runs[name].stdout[-3000:]
    validator = jsonschema.Draft202012Validator(load_schema())
    planted = load_implementation(f"tests.mutants.{name}:IMPLEMENTATION")
    reference = load_implementation("reference")
    for number, data in enumerate(vectors):
        assert validator.is_valid(data), [e.message for e in validator.iter_errors(data)]
        assert len(data["steps"]) <= MAX_STEPS, json.dumps(data["steps"])
        assert data["profile"] == "core"
        vector = Vector(data["id"], "core", tuple(data["clauses"]), data, f"printed {number}")
        replay_model(vector)  # a valid core vector: the model agrees with it
        for where in ("reference", "planted"):
            (tmp_path / f"{where}-{number}").mkdir()
        replay(vector, reference, tmp_path / f"reference-{number}")  # the spec holds
        # it catches the planted bug: a failed check (one naming its clause is a ClauseFailure),
        # or an error reading a buffer the planted merge closed (a closed FileBackedData's
        # ValueError)
        with pytest.raises((VectorFailure, ClauseFailure, ValueError, OSError)):
            replay(vector, planted, tmp_path / f"planted-{number}")
    assert any(PLANTED[name] in v["clauses"] for v in vectors), [v["clauses"] for v in vectors]
