"""Tests of ``cordspec run``'s options and exit statuses that need no child process."""

from __future__ import annotations

import io
import os
import re

import pytest

from conformance import cli
from conformance.cli import EXIT_HELP, Exit, exit_status, isolated, main
from conformance.run.console import Tee
from conformance.run.options import RUN_OPTIONS, time_limit
from conformance.run.settings import RunSettings


@pytest.mark.parametrize(
    ("status", "partial", "expected"),
    [
        (pytest.ExitCode.OK, False, Exit.CONFORMS),
        (pytest.ExitCode.OK, True, Exit.PARTIAL),
        (pytest.ExitCode.TESTS_FAILED, False, Exit.DOES_NOT_CONFORM),
        (pytest.ExitCode.TESTS_FAILED, True, Exit.DOES_NOT_CONFORM),
        (pytest.ExitCode.INTERRUPTED, True, Exit.INTERRUPTED),
        (pytest.ExitCode.INTERNAL_ERROR, False, Exit.USAGE),
        (pytest.ExitCode.USAGE_ERROR, False, Exit.USAGE),
        (pytest.ExitCode.NO_TESTS_COLLECTED, False, Exit.USAGE),
    ],
)
def test_each_pytest_status_has_one_meaning(
    status: pytest.ExitCode, partial: bool, expected: Exit
) -> None:
    assert exit_status(status, partial) is expected


def test_every_exit_status_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert " ".join(EXIT_HELP.split()) in help_text
    for status in Exit:
        assert re.search(rf"\b{int(status)} ", EXIT_HELP), status


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--version"])
    assert raised.value.code == 0
    assert re.fullmatch(r"cordspec \S+.*\n", capsys.readouterr().out)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ([], ["-n", "1", "--max-worker-restart", str(cli.MAX_WORKER_RESTARTS)]),
        (["-k", "merge"], ["-n", "1", "--max-worker-restart", "50", "-k", "merge"]),
        (["--max-worker-restart", "3"], ["-n", "1", "--max-worker-restart", "3"]),
        (["-n", "2"], ["-n", "2"]),
        (["-n0"], ["-n0"]),
        (["--numprocesses=4"], ["--numprocesses=4"]),
        (["-p", "no:xdist"], ["-p", "no:xdist"]),
        (["--pdb"], ["--pdb"]),
        (["--collect-only", "-q"], ["--collect-only", "-q"]),
    ],
)
def test_the_suite_runs_in_a_worker_unless_told_otherwise(
    extra: list[str], expected: list[str]
) -> None:
    """A worker's crash fails one test; the run goes on to its verdict."""
    assert isolated(extra, workers=1) == expected


def test_the_default_is_a_worker_per_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """As many workers as the cores this process may use, at most MAX_WORKERS; each still
    isolated, with the run's worker restarts."""
    monkeypatch.delenv(cli.WORKERS_VARIABLE, raising=False)
    for cores, expected in ((1, 1), (2, 2), (3, 3), (64, cli.MAX_WORKERS)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid, n=cores: set(range(n)), False)
        assert cli.default_workers() == expected
        assert isolated(["-k", "merge"]) == [
            "-n", str(expected), "--max-worker-restart", "50", "-k", "merge",
        ]  # fmt: skip
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert cli.default_workers() == 1
    assert isolated(["-n", "3"]) == ["-n", "3"]


def test_the_timeout_reaches_pytest() -> None:
    args = RunSettings("reference", "core", timeout=2.5).pytest_args()
    at = args.index("--cordspec-timeout")
    assert args[at + 1] == "2.5"
    assert next(o for o in RUN_OPTIONS if o.flag == "--timeout").settings["default"] is None
    assert "--cordspec-timeout" not in RunSettings("reference", "core", shrink=True).pytest_args()


def test_a_shrinking_run_has_a_longer_default_time_limit() -> None:
    """Hypothesis may shrink a failure for 300 s: a --shrink run's default limit leaves it room,
    a limit given is kept, and 0 is none."""
    assert (time_limit(None, False), time_limit(None, True)) == (180, 600)
    assert (time_limit(2.5, True), time_limit(0, True)) == (2.5, 0)


def test_the_console_leaves_out_the_sections_the_report_explains() -> None:
    console, full = io.StringIO(), io.StringIO()
    tee = Tee(console, full)
    text = (
        "==== test session starts ====\n"
        "collected 2 items\n"
        "..F"
        ".  [100%]\n"
        "==== FAILURES ====\n"
        "____ test_x ____\n"
        "a long traceback\n"
        "==== cordspec clause report ====\n"
        "CORD-WRITE-1 failed\n"
        "==== short test summary info ====\n"
        "FAILED test_x\n"
        "==== 1 failed, 3 passed ====\n"
    )
    for piece in re.split(r"(?<=\n)|(?<=\.F)", text):  # as pytest writes: lines, and dots
        tee.write(piece)
    assert full.getvalue() == text
    shown = console.getvalue()
    assert "traceback" not in shown and "FAILED test_x" not in shown
    assert "..F.  [100%]\n" in shown and "CORD-WRITE-1 failed\n" in shown
    assert shown.endswith("==== 1 failed, 3 passed ====\n")
    assert tee.hidden == ["FAILURES", "short test summary info"]


def test_the_workers_variable_chooses_the_default(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(cli.WORKERS_VARIABLE, "3")
    assert isolated([]) == ["-n", "3", "--max-worker-restart", "50"]
    assert isolated(["-n", "0"]) == ["-n", "0"]  # -n wins
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(cli.WORKERS_VARIABLE, bad)
        assert main(["run", "--", "-k", "merge"]) == Exit.USAGE
        assert f"CORDSPEC_WORKERS={bad!r}" in capsys.readouterr().err
