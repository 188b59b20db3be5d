"""Tests of the faults injected below Python (``conformance.harness.syscall_faults``): the
reference survives EIO at each system call of a move and of an owned close in a child under
strace; the mutants that reach the OS out of the Python hooks' sight fail the clauses they break
there; and where strace cannot run, the test is unobserved (its clauses untested), never passed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conformance.adapters import load_implementation
from conformance.harness import syscall_faults
from conformance.harness.checks import ClauseFailure
from conformance.harness.observe import UNOBSERVED_PREFIX
from conformance.harness.syscall_faults import scenario_calls
from conformance.harness.syscall_scenarios import CLOSE, MOVE, Scenario, reading, run_below_python

needs_strace = pytest.mark.skipif(
    syscall_faults.unavailable() is not None, reason=str(syscall_faults.unavailable())
)
PER_FAULT = 3.0
"""Seconds one faulted run of the reference may take here (an interpreter under ptrace; about
0.3 s on a quiet machine), with room for a loaded one."""


@needs_strace
@pytest.mark.parametrize("scenario", [MOVE, CLOSE], ids=["move", "close"])
def test_the_reference_survives_each_faulted_system_call(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    impl = load_implementation("reference")
    count = tmp_path / "count"
    count.mkdir()
    calls = scenario_calls(impl, scenario.script, count)
    names = {fault.syscall for fault in calls}
    want = {"rename"} if scenario is MOVE else {"unlinkat", "unlink"}
    assert names & want, f"strace saw no {want} in {scenario.what}: {calls}"
    started = time.perf_counter()
    run_below_python(impl, scenario, tmp_path, "(forced)", after=False)
    seconds = time.perf_counter() - started
    said = capsys.readouterr().out
    assert f"{len(calls)} system calls faulted" in said, said
    assert seconds < PER_FAULT * len(calls), f"{len(calls)} faulted runs took {seconds:.1f} s"


@needs_strace
@pytest.mark.parametrize(
    "method",
    ["prefix", "sha256", "to_bytes", "write-file", "write-bytesio", "cord-write-bytesio"],
)
def test_the_reference_survives_each_faulted_read_and_write(method: str, tmp_path: Path) -> None:
    run_below_python(load_implementation("reference"), reading(method), tmp_path, "x", after=False)


@needs_strace
def test_a_read_that_hides_a_fault_is_judged_below_python(tmp_path: Path) -> None:
    """A port whose to_bytes() reads through posix and answers empty on any error."""
    impl = load_implementation("tests.impls.read_unseen_error_swallowed:IMPLEMENTATION")
    with pytest.raises(ClauseFailure) as failed:
        run_below_python(impl, reading("to_bytes"), tmp_path, "(forced)", after=False)
    assert failed.value.clauses == ("FBD-READ-2",), failed.value


@needs_strace
@pytest.mark.parametrize(
    ("mutant", "scenario", "clause"),
    [
        ("move_rename_unseen_error_swallowed", MOVE, "FBD-FAULT-1"),
        ("close_unlink_unseen_error_swallowed", CLOSE, "FBD-CLOSE-7"),
    ],
)
def test_a_port_out_of_the_hooks_sight_is_judged_below_python(
    mutant: str, scenario: Scenario, clause: str, tmp_path: Path
) -> None:
    impl = load_implementation(f"tests.mutants.{mutant}:IMPLEMENTATION")
    with pytest.raises(ClauseFailure) as failed:
        run_below_python(impl, scenario, tmp_path, "(forced)", after=False)
    assert failed.value.clauses == (clause,), failed.value


def test_without_strace_the_test_is_unobserved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    syscall_faults.unavailable.cache_clear()
    monkeypatch.setattr(syscall_faults.shutil, "which", lambda name: None)
    try:
        with pytest.raises(pytest.skip.Exception) as skipped:
            run_below_python(load_implementation("reference"), MOVE, tmp_path, "x", after=False)
    finally:
        monkeypatch.undo()
        syscall_faults.unavailable.cache_clear()
    assert str(skipped.value).startswith(UNOBSERVED_PREFIX), skipped.value
    assert "not testable here: strace unavailable" in str(skipped.value)


def test_a_fault_after_a_call_is_unobserved_below_python(tmp_path: Path) -> None:
    with pytest.raises(pytest.skip.Exception) as skipped:
        run_below_python(load_implementation("reference"), MOVE, tmp_path, "x", after=True)
    assert str(skipped.value).startswith(f"{UNOBSERVED_PREFIX}x; a fault after"), skipped.value
