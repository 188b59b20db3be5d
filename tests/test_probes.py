"""Tests of the suite's bounded probes (``conformance.harness.probes``): an interrupt that leaves
a lock the implementation takes held fails FBD-INTR-1, found by a follow-up move and close in
another thread, and the run says what it waited for instead of failing another clause."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.harness import probes
from conformance.harness.checks import ClauseFailure
from conformance.harness.observe import UNOBSERVED_PREFIX
from tests.children import REPO, subprocess_env


def test_a_lock_stranded_by_an_interrupt_fails_intr_1(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--impl",
         "tests.impls.close_strands_registry_lock:IMPLEMENTATION", "--report", str(report),
         "--", "-k", "test_close_interrupted_at_each_step and lines"],
        cwd=REPO, env=subprocess_env(), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert report.is_file(), done.stdout + done.stderr
    clauses = {c["id"]: c for c in json.loads(report.read_text())["clauses"]}
    intr = clauses["FBD-INTR-1"]
    assert intr["status"] == "failed", intr
    assert "a lock the implementation takes was left held" in intr["reason"], intr


def test_a_probe_that_waits_in_vain_says_what_for() -> None:
    probes.stranded.clear()
    with pytest.raises(AssertionError, match=r"the probe had not finished after 0\.1 s"):
        probes.bounded(lambda: __import__("time").sleep(5), "the probe", "to see it end", 0.1)


def test_after_a_stranded_lock_a_waiting_probe_blames_no_clause() -> None:
    probes.stranded[:] = ["a lock found held by an earlier test"]
    try:
        with pytest.raises(pytest.skip.Exception) as skipped:
            probes.bounded(lambda: __import__("time").sleep(5), "the probe", "to see it", 0.1)
        assert str(skipped.value).startswith(UNOBSERVED_PREFIX), skipped.value
        with pytest.raises(pytest.skip.Exception):
            probes.follow_up(lambda: __import__("time").sleep(5), "a run", "FBD-INTR-1", 0.1)
    finally:
        probes.stranded.clear()
    with pytest.raises(ClauseFailure) as failed:
        probes.follow_up(lambda: __import__("time").sleep(5), "a run", "FBD-INTR-1", 0.1)
    assert failed.value.clauses == ("FBD-INTR-1",)
    probes.stranded.clear()
