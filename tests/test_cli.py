"""Tests of the ``cordspec`` command line, run as a user runs it: in a subprocess.

The full runs (each profile against the reference, an implementation without hooks, and one under
pytest-xdist) run once, together, in a module-scoped fixture; the other runs select a few suite
tests by the clauses they name.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import reference
from conformance.cli import clause_lines, first_sentence, main
from conformance.harness.hypothesis_home import HOME_VARIABLE
from conformance.run.collect import SuiteTest, collect_suite, keyword_for
from conformance.run.report import report_schema
from conformance.run.settings import RunSettings
from conformance.run.spec import PROFILES, load_spec
from tests.children import REPO, shared_runs, subprocess_env
from tests.test_planted_bugs import vectors_in

pytestmark = pytest.mark.meta  # runs the suite in child processes: tox -e meta

SPEC = load_spec()
SCHEMA = report_schema()
HOOKS = [c.id for c in SPEC.clauses.values() if c.id.startswith("HOOK-")]


@dataclass
class Run:
    proc: subprocess.CompletedProcess[str]
    directory: Path

    @property
    def code(self) -> int:
        return self.proc.returncode

    @property
    def out(self) -> str:
        return self.proc.stdout

    def json(self, name: str = "report.json") -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.directory / name).read_text("utf-8"))
        return data

    def markdown(self, name: str = "report.md") -> str:
        return (self.directory / name).read_text("utf-8")

    def statuses(self, name: str = "report.json") -> dict[str, str]:
        return {c["id"]: c["status"] for c in self.json(name)["clauses"]}

    def why(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.out[-4000:]}\n--- stderr\n{self.proc.stderr}"


def cordspec(
    *args: str, cwd: Path, env: dict[str, str] | None = None, command: list[str] | None = None
) -> Run:
    """``python -m conformance ARGS`` in ``cwd`` (reports, if any, are written there)."""
    proc = subprocess.run(
        [*(command or [sys.executable, "-m", "conformance"]), *args],
        cwd=cwd,
        env=env or subprocess_env(COLUMNS="100"),
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    return Run(proc, cwd)


def run_with_reports(cwd: Path, *args: str) -> Run:
    """``cordspec run`` with ``args`` and both reports; the reports are cordspec's options, so
    they go before a ``--`` that hands the rest to pytest."""
    reports = ("--report", "report.json", "--report", "report.md")
    cut = args.index("--") if "--" in args else len(args)
    return cordspec("run", *args[:cut], *reports, *args[cut:], cwd=cwd)


@pytest.fixture(scope="module")
def suite_tests() -> list[SuiteTest]:
    return collect_suite(env=subprocess_env())


FULL_RUNS = {
    "core": ("--profile", "core"),
    "strict": ("--profile", "strict"),
    "strict-xdist": ("--profile", "strict", "--", "-n", "2"),
    "nohooks": ("--impl", "tests.impls.nohooks", "--profile", "strict"),
    "core-only": ("--impl", "tests.impls.core_only", "--profile", "strict"),
}


@pytest.fixture(scope="module")
def full_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The full runs, each from a directory that is not the repository, made once per session."""
    argvs = {}
    for name, args in FULL_RUNS.items():
        at = args.index("--") if "--" in args else len(args)
        argv = [sys.executable, "-m", "conformance", "run", *args[:at]]
        argvs[name] = [*argv, "--report", "report.json", "--report", "report.md", *args[at:]]
    runs = shared_runs(tmp_path_factory, "full-runs", argvs, env=subprocess_env(COLUMNS="100"))
    return {name: Run(proc, directory) for name, (directory, proc) in runs.items()}


@pytest.fixture(params=PROFILES)
def full_run(request: pytest.FixtureRequest, full_runs: dict[str, Run]) -> Run:
    """A full run of the reference."""
    return full_runs[request.param]


@pytest.fixture
def nohooks_run(full_runs: dict[str, Run]) -> Run:
    return full_runs["nohooks"]


# --- the reference conforms ----------------------------------------------------------------------


def test_full_run_of_the_reference_conforms(full_run: Run) -> None:
    assert full_run.code == 0, full_run.why()
    data = full_run.json()
    profile = data["profile"]
    expected = ["core"] if profile == "core" else ["core", "strict"]
    assert list(data["verdicts"]) == expected
    md = full_run.markdown()
    for name in expected:
        verdict = data["verdicts"][name]
        assert verdict["result"] == "conforms", verdict
        assert verdict["verdict"] == f"CONFORMS ({verdict['passed']}/{verdict['passed']})"
        assert f"- **{name}**: {verdict['verdict']}" in md
        assert re.search(rf"^{name}: +{re.escape(verdict['verdict'])}$", full_run.out, re.M)
    assert data["exit_ok"] is True
    assert not (full_run.directory / ".hypothesis").exists()  # Hypothesis' files go elsewhere


def test_every_clause_of_the_reference_is_tested_or_explained(full_run: Run) -> None:
    """No clause of the reference's report is left untested without a reason: each passed, or
    the spec says why no test of the suite can check it and the report gives that reason."""
    for clause in full_run.json()["clauses"]:
        untested = SPEC.clauses[clause["id"]].untested
        if clause["status"] == "not testable here":
            assert untested and clause["reason"] == untested, clause
        else:
            assert clause["status"] == "passed", clause


def test_parallel_without_xdist_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "xdist", None)  # find_spec says it is not installed
    for flag in (["-n", "2"], ["-n2"], ["--numprocesses=auto"]):
        assert main(["run", "--", *flag]) == 2
        assert capsys.readouterr().err == (
            f"cordspec: {flag[0]} runs the suite in parallel, which needs pytest-xdist (a "
            "dependency of cordspec): pip install pytest-xdist\n"
        )


def test_report_lists_every_clause_of_the_profile(full_run: Run) -> None:
    data = full_run.json()
    wanted = [c.id for c in SPEC.in_profile(data["profile"])]
    assert [c["id"] for c in data["clauses"]] == wanted
    md = full_run.markdown()
    for clause_id in wanted:
        assert f"\n| {clause_id} | " in md
    others = [c.id for c in SPEC.clauses.values() if c.id not in wanted]
    assert not [c for c in others if f"| {c} | " in md]
    rows = [line.split()[0] for line in full_run.out.splitlines() if line.split()]
    assert [r for r in rows if r in SPEC.clauses] == wanted


def test_report_header(full_run: Run) -> None:
    data = full_run.json()
    assert data["implementation"] == {
        "name": "reference",
        "version": reference.__version__,
        "impl": "reference",
    }
    assert data["spec_version"] == SPEC.version
    assert data["absent_capabilities"] == []
    assert datetime.fromisoformat(data["date"]).tzinfo is not None
    md = full_run.markdown()
    assert f"| Implementation | reference {reference.__version__} |" in md
    assert f"| Profile | {data['profile']} |" in md
    assert f"| Spec version | {SPEC.version} |" in md
    assert f"implementation: reference {reference.__version__} (--impl reference)" in full_run.out


def test_json_report_matches_the_schema(full_run: Run) -> None:
    validator = jsonschema.Draft202012Validator(
        SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    validator.validate(full_run.json())


def test_terminal_summary_fits_100_columns(full_run: Run) -> None:
    out = full_run.out
    assert "cordspec clause report" in out, full_run.why()
    section = out[out.index("cordspec clause report") :].splitlines()
    too_wide = [line for line in section if len(line) > 100]
    assert not too_wide


def test_a_run_under_xdist_reports_what_a_serial_run_does(full_runs: dict[str, Run]) -> None:
    serial, parallel = full_runs["strict"], full_runs["strict-xdist"]
    assert parallel.code == serial.code, parallel.why()
    assert "created: 2/2 workers" in parallel.out, parallel.why()
    assert parallel.json()["verdicts"] == serial.json()["verdicts"]
    assert parallel.statuses() == serial.statuses()
    assert parallel.json()["tests"] == serial.json()["tests"]


# --- other implementations ----------------------------------------------------------------------


def test_an_implementation_without_hooks_conforms_with_hooks_not_applicable(
    nohooks_run: Run,
) -> None:
    assert nohooks_run.code == 0, nohooks_run.why()
    data = nohooks_run.json()
    assert data["implementation"]["name"] == "tests.impls.nohooks"
    assert data["implementation"]["impl"] == "tests.impls.nohooks"
    reason = "tests.impls.nohooks provides no backend hooks"
    absent = {a["capability"]: a["reason"] for a in data["absent_capabilities"]}
    assert absent == {
        "sweep": "tests.impls.nohooks provides no sweep",
        "copy-hook": reason,
        "weights-hooks": reason,
        "weights-key": reason,
        "low-memory-weights": reason,
    }
    needs = SPEC.needing(absent)
    assert set(HOOKS) <= set(needs)
    statuses = {c["id"]: (c["status"], c["reason"]) for c in data["clauses"] if c["id"] in needs}
    assert statuses == {
        clause: ("not applicable", f"needs {part}: {absent[part]}")
        for clause, part in needs.items()
    }
    for name, verdict in data["verdicts"].items():
        assert verdict["result"] == "conforms", (name, verdict)
        assert verdict["covers"] == f"{name} (without: sweep, hooks)"
        assert verdict["not_applicable"] == len(
            [c for c in SPEC.in_profile(name) if c.id in needs and c.keyword.startswith("MUST")]
        )
    md = nohooks_run.markdown()
    assert f"`copy-hook`: {reason}" in md
    assert "| HOOK-COPY-1 | MUST | core | not applicable | " in md
    assert f"absent: copy-hook: {reason}" in nohooks_run.out
    assert "core (without: sweep, hooks):" in nohooks_run.out


def test_no_clause_is_credited_for_a_part_the_implementation_lacks(
    full_runs: dict[str, Run],
) -> None:
    """An implementation with no optional part: every clause that section 1.1 lists for a part
    is not applicable, every test naming only such clauses was not applicable itself (it was
    marked, not merely discounted), and nothing failed (no unmarked test reached a missing part)."""
    run = full_runs["core-only"]
    assert run.code == 0, run.why()
    data = run.json()
    absent = {a["capability"] for a in data["absent_capabilities"]}
    assert absent == set(SPEC.parts)
    needs = SPEC.needing(absent)
    assert needs, "section 1.1 lists no clause"
    for clause in data["clauses"]:
        if clause["id"] in needs:
            assert clause["status"] == "not applicable", clause
            only_absent = [
                t
                for t in clause["tests"]
                if all(c in needs for c in _clauses_of(data, t["nodeid"]))
            ]
            assert all(t["outcome"] == "not applicable" for t in only_absent), only_absent
    without = "file-backed data, sweep, externalize_pte_data, hooks"
    for name, verdict in data["verdicts"].items():
        assert verdict["covers"] == f"{name} (without: {without})"
        assert verdict["result"] == "conforms", verdict
    assert f"core (without: {without}):" in run.out
    assert f"- **core** (without: {without}): CONFORMS (" in run.markdown()


def _clauses_of(data: dict[str, Any], nodeid: str) -> set[str]:
    return {c["id"] for c in data["clauses"] if any(t["nodeid"] == nodeid for t in c["tests"])}


def test_a_broken_implementation_does_not_conform(
    tmp_path: Path, suite_tests: list[SuiteTest]
) -> None:
    selection = keyword_for(suite_tests, "CORD-WRITE-1")
    run = run_with_reports(tmp_path, "--impl", "tests.impls.broken_cord", "--", "-k", selection)
    assert run.code == 1, run.why()
    data = run.json()
    assert data["verdicts"]["core"]["result"] == "does-not-conform"
    assert data["verdicts"]["core"]["failed"] >= 1
    clause = next(c for c in data["clauses"] if c["id"] == "CORD-WRITE-1")
    assert clause["status"] == "failed"
    # some of its tests (one piece, an empty Cord) cannot see the order: a test of it failed
    assert any(t["outcome"] == "failed" for t in clause["tests"])
    assert "- **core** (without: sweep, hooks): DOES NOT CONFORM (" in run.markdown()
    assert "| CORD-WRITE-1 | MUST | core | failed | " in run.markdown()


def test_a_declared_deviation_the_implementation_meets_fails_the_run(
    tmp_path: Path, suite_tests: list[SuiteTest]
) -> None:
    (tmp_path / "dev.txt").write_text("CORD-INIT-1  pretend it fails\n", encoding="utf-8")
    selection = keyword_for(suite_tests, "CORD-INIT-1", "CORD-INIT-2")
    run = run_with_reports(tmp_path, "--deviations", "dev.txt", "--", "-k", selection)
    assert run.code == 1, run.why()
    statuses = run.statuses()
    assert statuses["CORD-INIT-1"] == "deviation fixed"  # declared, and none of its checks failed
    assert statuses["CORD-INIT-2"] == "passed"
    clause = next(c for c in run.json()["clauses"] if c["id"] == "CORD-INIT-1")
    assert "pretend it fails" in clause["reason"], clause["reason"]
    assert "no check of it failed" in clause["reason"], clause["reason"]


def test_a_declared_deviation_that_holds_is_an_expected_deviation(
    tmp_path: Path, suite_tests: list[SuiteTest]
) -> None:
    """Reported alike with and without xdist, together with passed, not applicable and, as the
    run is narrowed by -k, not run. A test of FBD-FAULT-1 that also names CORD-WRITE-1 fails with
    the reversed Cord at its check of CORD-WRITE-1: its failure is CORD-WRITE-1's expected
    deviation, and FBD-FAULT-1, which no other test of the run checks, is masked."""
    (tmp_path / "dev.txt").write_text(
        "# the broken Cord on purpose\nCORD-WRITE-1  writes its pieces in reverse\n",
        encoding="utf-8",
    )
    selection = keyword_for(suite_tests, "CORD-WRITE-1", "CORD-INIT-1", *HOOKS)
    base = ["--impl", "tests.impls.broken_cord", "--deviations", "dev.txt", "--profile", "core"]
    serial = cordspec("run", *base, "--report", "serial.json", "--", "-k", selection, cwd=tmp_path)
    parallel = cordspec(
        "run", *base, "--report", "xdist.json", "--", "-k", selection, "-n", "2", cwd=tmp_path
    )
    for run, name in ((serial, "serial.json"), (parallel, "xdist.json")):
        data = run.json(name)
        clause = next(c for c in data["clauses"] if c["id"] == "CORD-WRITE-1")
        assert clause["status"] == "expected deviation", run.why()
        assert clause["reason"] == "CORD-WRITE-1: writes its pieces in reverse"
        statuses = set(run.statuses(name).values())
        assert {"expected deviation", "passed", "not applicable", "not run"} <= statuses
        assert "untested" not in statuses and "failed" not in statuses
        assert run.statuses(name)["FBD-FAULT-1"] in ("masked", "passed"), run.why()
        assert "PARTIAL RUN" in data["verdicts"]["core"]["verdict"]
        assert run.code == 4  # a partial run is judged on the clauses it ran, and says so
    assert serial.json("serial.json")["verdicts"] == parallel.json("xdist.json")["verdicts"]
    assert serial.statuses("serial.json") == parallel.statuses("xdist.json")


def test_impl_defaults_to_the_environment(tmp_path: Path, suite_tests: list[SuiteTest]) -> None:
    env = subprocess_env(CORDSPEC_IMPL="tests.impls.nohooks")
    selection = keyword_for(suite_tests, "CORD-INIT-1")
    run = cordspec("run", "--report", "r.json", "--", "-k", selection, cwd=tmp_path, env=env)
    assert run.json("r.json")["implementation"]["impl"] == "tests.impls.nohooks", run.why()


# --- errors before pytest starts ----------------------------------------------------------------


def one_line_error(run: Run) -> str:
    assert run.code == 2, run.why()
    assert run.out == ""
    lines = run.proc.stderr.splitlines()
    assert len(lines) == 1, run.proc.stderr
    assert lines[0].startswith("cordspec: ")
    return lines[0]


@pytest.mark.parametrize(
    ("impl", "named"),
    [
        ("json", "json is not an implementation"),
        (
            "conformance.adapters.reference",
            "did you mean --impl conformance.adapters.reference:load?",
        ),
        ("no_such_module_for_cordspec", "no_such_module_for_cordspec"),
        ("tests.impls.nohooks:nothing", "'nothing'"),
        (
            "tests.impls.raises_on_import",
            "RuntimeError: this implementation is not ready (second line",
        ),
    ],
    ids=[
        "not-an-implementation",
        "a-forgotten-loader",
        "missing-module",
        "missing-attribute",
        "raises-on-import",
    ],
)
def test_an_impl_that_does_not_load(tmp_path: Path, impl: str, named: str) -> None:
    line = one_line_error(cordspec("run", "--impl", impl, cwd=tmp_path))
    assert named in line


def test_a_missing_deviations_file(tmp_path: Path) -> None:
    line = one_line_error(cordspec("run", "--deviations", "nope.txt", cwd=tmp_path))
    assert "nope.txt" in line


def test_a_bad_deviations_file(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_text("CORD-INIT-1\n", encoding="utf-8")
    line = one_line_error(cordspec("run", "--deviations", "bad.txt", cwd=tmp_path))
    assert "bad.txt:1: 'CORD-INIT-1' has no reason" in line


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("NDS-MERGE-6: merged keys stay", "'NDS-MERGE-6:' is neither a clause id"),
        ("NDS-MERGE-66 no such clause", "'NDS-MERGE-66' is not a clause of the spec"),
        ("test_no_such_test a typo", "'test_no_such_test' names no test of the suite"),
    ],
)
def test_a_deviation_that_matches_nothing_is_refused_before_the_run(
    tmp_path: Path, line: str, problem: str
) -> None:
    (tmp_path / "dev.txt").write_text(f"# known\nNDS-MERGE-6 real\n{line}\n", encoding="utf-8")
    run = cordspec("run", "--deviations", "dev.txt", cwd=tmp_path)
    assert run.code == 2, run.why()
    assert run.out == ""  # pytest never started
    assert f"dev.txt:3: {problem}" in run.proc.stderr, run.why()


def test_a_deviation_naming_no_collected_case_is_refused_before_any_test(tmp_path: Path) -> None:
    (tmp_path / "dev.txt").write_text("test_vector[999-no-such-vector] gone\n", encoding="utf-8")
    run = cordspec("run", "--deviations", "dev.txt", cwd=tmp_path)
    assert run.code == 2, run.why()
    assert "dev.txt:1: 'test_vector[999-no-such-vector]': test_vector has no such case" in (
        run.out + run.proc.stderr
    ), run.why()
    assert " passed" not in run.out, run.why()


@pytest.mark.parametrize(
    ("report", "problem"),
    [
        ("missing/report.json", "its directory 'missing' does not exist"),
        ("a-file/report.json", "its directory 'a-file' is not a directory"),
        ("a-dir.json", "is a directory"),
    ],
)
def test_an_unwritable_report_path_is_refused_before_the_run(
    tmp_path: Path, report: str, problem: str
) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    (tmp_path / "a-dir.json").mkdir()
    run = cordspec("run", "--report", report, cwd=tmp_path)
    assert run.code == 2, run.why()
    assert run.out == ""
    assert f"{report}: {problem}" in run.proc.stderr, run.why()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-dir.json", "a-file"]


def test_an_unknown_report_format(tmp_path: Path) -> None:
    run = cordspec("run", "--report", "out.txt", cwd=tmp_path)
    assert run.code == 2
    assert "out.txt: unknown report format '.txt'" in run.proc.stderr
    assert not list(tmp_path.iterdir())


# --- configuration and isolation ----------------------------------------------------------------


def test_the_project_it_runs_in_does_not_configure_the_run(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --no-such-option\n", "utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "--no-such-option"\n', "utf-8"
    )
    (tmp_path / "conftest.py").write_text(
        "raise RuntimeError('project conftest loaded')\n", "utf-8"
    )
    (tmp_path / "test_project.py").write_text("def test_project(): pass\n", "utf-8")
    run = cordspec("run", "--", "--collect-only", "-q", cwd=tmp_path)
    assert run.code == 0, run.why()
    ids = [line for line in run.out.splitlines() if "::" in line]
    assert ids
    assert all(i.startswith("suite/") for i in ids), ids[:5]


def test_the_repository_configuration_does_not_leak_in() -> None:
    run = cordspec("run", "--", "--collect-only", cwd=REPO)
    assert run.code == 0, run.why()
    assert "rootdir: " + str(REPO / "conformance") in run.out
    assert "configfile: cordspec.ini" in run.out
    assert "<Dir tests>" not in run.out
    assert "<Package suite>" in run.out


def test_pytest_args() -> None:
    settings = RunSettings("x.y", "core", ("/r.md",), "/d.txt", "ci")
    args = settings.pytest_args(["-k", "foo"])
    assert args[:2] == ["-c", str(REPO / "conformance" / "cordspec.ini")]
    assert args[4:6] == ["-p", "no:cacheprovider"]
    assert str(REPO / "conformance" / "suite") in args
    for pair in (
        ["--cordspec-impl", "x.y"],
        ["--cordspec-profile", "core"],
        ["--cordspec-report", "/r.md"],
        ["--cordspec-deviations", "/d.txt"],
        ["--hypothesis-profile", "ci"],
    ):
        assert any(args[i : i + 2] == pair for i in range(len(args) - 1)), pair
    assert args[-2:] == ["-k", "foo"]


def test_hypothesis_profile_reaches_pytest(tmp_path: Path) -> None:
    ok = cordspec(
        "run", "--hypothesis-profile", "default", "--", "--collect-only", "-q", cwd=tmp_path
    )
    assert ok.code == 0, ok.why()
    bad = cordspec(
        "run", "--hypothesis-profile", "no-such-profile", "--", "--collect-only", "-q", cwd=tmp_path
    )
    assert bad.code != 0
    assert "no-such-profile" in bad.out + bad.proc.stderr


SHRINK_HINT = "cordspec: failing examples were not shrunk; for minimal ones, run: "


def test_a_failure_is_not_shrunk_by_default_and_the_hint_shrinks_it(tmp_path: Path) -> None:
    """Counted, not timed: the default run has no shrink phase, and the command it prints for the
    minimal example runs the failing test again with one."""
    impl = "tests.mutants.cord_accepts_bytearray:IMPLEMENTATION"
    statistics = "--hypothesis-show-statistics"

    def fresh_cache(name: str) -> dict[str, str]:
        """A cache of its own: no example database of an earlier run replays the failure."""
        env = subprocess_env(COLUMNS="100", XDG_CACHE_HOME=str(tmp_path / name))
        env.pop(HOME_VARIABLE, None)  # else `cordspec run` keeps the home it names
        return env

    quick = cordspec(
        "run", "--impl", impl, "--", "-q", "-k", "test_any_cord_piece", statistics,
        cwd=tmp_path, env=fresh_cache("quick"),
    )  # fmt: skip
    assert quick.code == pytest.ExitCode.TESTS_FAILED, quick.why()
    assert "during generate phase" in quick.out, quick.why()
    assert "during shrink phase" not in quick.out, quick.why()
    hints = [line for line in quick.out.splitlines() if line.startswith(SHRINK_HINT)]
    assert len(hints) == 1, quick.why()
    command = shlex.split(hints[0][len(SHRINK_HINT) :])
    assert command == [
        "cordspec",
        "run",
        "--impl",
        impl,
        "--profile",
        "strict",
        "--shrink",
        "--",
        "-k",
        "test_any_cord_piece",
    ]
    shrunk = cordspec(*command[1:], statistics, cwd=tmp_path, env=fresh_cache("shrunk"))
    assert shrunk.code == pytest.ExitCode.TESTS_FAILED, shrunk.why()
    assert "during shrink phase" in shrunk.out, shrunk.why()
    assert SHRINK_HINT not in shrunk.out


@pytest.mark.parametrize(
    "impl", ["tests.impls.merge_drops_layout", "tests.mutants.merge_skips_external:IMPLEMENTATION"]
)
def test_shrinking_blames_the_clauses_the_plain_run_blamed(impl: str, tmp_path: Path) -> None:
    """The store machine against a port whose merge is broken, with one seed and example
    databases of their own: the run with --shrink fails exactly the clauses the plain run failed
    (a failure of one clause is never shrunk into another's), and its minimal vector is short."""

    def run(name: str, *extra: str) -> tuple[list[str], Run]:
        env = subprocess_env(COLUMNS="100", XDG_CACHE_HOME=str(tmp_path / name))
        env.pop(HOME_VARIABLE, None)  # else `cordspec run` keeps the home it names
        done = cordspec(
            "run", "--impl", impl, "--profile", "strict", "--report", f"{name}.json", *extra,
            "--output", f"{name}.log", "--", "-k", "test_store_machine", "--hypothesis-seed=0",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert done.code == pytest.ExitCode.TESTS_FAILED, done.why()
        statuses = done.statuses(f"{name}.json")
        return sorted(c for c, s in statuses.items() if s == "failed"), done

    plain, _ = run("plain")
    shrunk, _ = run("shrunk", "--shrink")
    assert "NDS-MERGE-1" in plain, plain
    assert shrunk == plain
    log = (tmp_path / "shrunk.log").read_text("utf-8")
    vectors = vectors_in(log)
    assert vectors, log[-4000:]
    for vector in vectors:
        steps = [s for s in vector["steps"] if not str(s.get("as", "")).startswith("final-")]
        assert len(steps) <= 4, vector


def test_a_passing_run_prints_no_shrink_hint(full_run: Run) -> None:
    assert SHRINK_HINT not in full_run.out


def test_the_console_script_finds_modules_of_the_current_directory(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("cordspec")
    assert script.exists(), f"the console script is not installed next to {sys.executable}"
    package = tmp_path / "myimpl"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from reference import Cord, DataEntry, FileBackedData, NamedDataStore, "
        "NamedDataStoreOutput\n",
        "utf-8",
    )
    env = subprocess_env()
    env.pop("PYTHONPATH")
    # the tests that need a capability: the hooks' are not applicable, the subprocess ones load
    # myimpl by name in child interpreters
    args = ["run", "--impl", "myimpl", "--report", "r.json", "--", "-m", "requires"]
    run = cordspec(*args, cwd=tmp_path, env=env, command=[str(script)])
    assert "cordspec report written to" in run.out, run.why()
    tests = run.json("r.json")["tests"]
    assert tests["failed"] == tests["skipped"] == 0, run.why()
    assert tests["passed"] > 0
    assert tests["not_applicable"] > 0


# --- cordspec clauses ---------------------------------------------------------------------------


def test_clauses_lists_every_clause(tmp_path: Path) -> None:
    run = cordspec("clauses", cwd=tmp_path)
    assert run.code == 0, run.why()
    lines = run.out.splitlines()
    assert [line.split()[0] for line in lines] == list(SPEC.clauses)
    assert all(len(line) <= 100 for line in lines)
    for clause, line in zip(SPEC.clauses.values(), lines, strict=True):
        assert re.match(rf"{clause.id} +{clause.keyword} +{clause.profile} +\S", line), line


def test_clauses_of_a_profile(tmp_path: Path) -> None:
    run = cordspec("clauses", "--profile", "core", cwd=tmp_path)
    assert [line.split()[0] for line in run.out.splitlines()] == [
        c.id for c in SPEC.in_profile("core")
    ]


def test_clauses_with_their_tests(tmp_path: Path, suite_tests: list[SuiteTest]) -> None:
    """Each clause line is followed by the tests naming it, without parameters, as collected."""
    run = cordspec("clauses", "--tests", "--profile", "core", cwd=tmp_path)
    assert run.code == 0, run.why()
    listed: dict[str, list[str]] = {}
    clause = ""
    for line in run.out.splitlines():
        if line.startswith("    "):
            listed[clause].append(line.strip())
        else:
            clause = line.split()[0]
            listed[clause] = []
    assert list(listed) == [c.id for c in SPEC.in_profile("core")]
    expected: dict[str, dict[str, None]] = {c: {} for c in listed}
    for test in suite_tests:
        for c in test.clauses:
            if c in expected:
                expected[c].setdefault(test.nodeid.partition("[")[0], None)
    assert listed == {c: list(tests) or ["(no test)"] for c, tests in expected.items()}
    assert "suite/test_cord.py::TestCordConstruction::test_empty" in listed["CORD-INIT-1"]


def test_clause_lines() -> None:
    clauses = list(SPEC.clauses.values())
    lines = clause_lines(clauses, 80)
    assert all(len(line) <= 80 for line in lines)
    for clause, line in zip(clauses, lines, strict=True):
        assert re.match(rf"{clause.id} +{clause.keyword} +{clause.profile} +\S", line), line
    assert (
        first_sentence("It MUST work, e.g. here.  Then more.\nMore.") == "It MUST work, e.g. here."
    )
    assert first_sentence("Only one\nline") == "Only one line"


def test_no_command_is_a_usage_error(tmp_path: Path) -> None:
    run = cordspec(cwd=tmp_path)
    assert run.code == 2
    assert "usage: cordspec" in run.proc.stderr


def test_main_in_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.cli import main

    monkeypatch.setattr(sys, "path", list(sys.path))  # `run` puts the current directory on it

    assert main(["clauses", "--profile", "strict"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(SPEC.clauses)
    assert main(["run", "--impl", "json"]) == 2
    assert capsys.readouterr().err.startswith("cordspec: json is not an implementation")


def test_a_port_declared_by_the_clauses_it_failed_conforms_with_exactly_those(
    tmp_path: Path,
) -> None:
    """The porter's route: run, declare the clauses the report failed (by clause),
    run again: exit 0, and exactly those clauses read "expected deviation"."""
    impl = "tests.impls.merge_drops_layout"
    # one seed for both runs: the store machine draws the same examples, so the second run meets
    # the failures the first one declared (another draw can find the port's bug under NDS-KEY-6)
    seed = "--hypothesis-seed=0"
    plain = cordspec(
        "run", "--impl", impl, "--report", "plain.json", "--", "-n", "2", seed, cwd=tmp_path
    )  # fmt: skip
    assert plain.code == pytest.ExitCode.TESTS_FAILED, plain.why()
    failed = sorted(c for c, s in plain.statuses("plain.json").items() if s == "failed")
    assert failed and all(c.startswith("NDS-") for c in failed), failed
    lines = "".join(f"{c}  merge drops the tensor layout\n" for c in failed)
    (tmp_path / "port.deviations").write_text(lines, encoding="utf-8")
    declared = cordspec(
        "run", "--impl", impl, "--deviations", "port.deviations", "--report", "declared.json",
        "--", "-n", "2", seed, cwd=tmp_path,
    )  # fmt: skip
    assert declared.code == 0, declared.why()
    statuses = declared.statuses("declared.json")
    assert sorted(c for c, s in statuses.items() if s == "expected deviation") == failed
    assert "XPASS" not in declared.out
    verdict = declared.json("declared.json")["verdicts"]["strict"]
    assert verdict["result"] == "conforms-with-deviations", verdict


@pytest.mark.parametrize(
    ("impl", "why"),
    [("tests.impls.deadlocks", "hung after 2 s"), ("tests.impls.crashes", "crashed: ")],
)
def test_a_port_that_hangs_or_crashes_gets_a_verdict(impl: str, why: str, tmp_path: Path) -> None:
    """Its Cord.write_to_file deadlocks (or ends the process): the write's clause fails as hung
    (crashed), the other clauses of the run are judged, and the run ends with a verdict."""
    selection = "test_order_into_a_real_file or TestCordConstruction"
    run = cordspec(
        "run", "--impl", impl, "--timeout", "2", "--report", "r.json", "--", "-k", selection,
        cwd=tmp_path,
    )  # fmt: skip
    assert run.code == 1, run.why()
    clauses = {c["id"]: c for c in run.json("r.json")["clauses"]}
    write = clauses["CORD-WRITE-1"]
    assert write["status"] == "failed" and why in write["reason"], write
    assert clauses["CORD-INIT-1"]["status"] in ("passed", "failed"), clauses["CORD-INIT-1"]
    assert "DOES NOT CONFORM" in run.json("r.json")["verdicts"]["core"]["verdict"]


SWALLOWED_SELECTION = "test_order_into_a_real_file or test_from_cord_is_a_snapshot"


@pytest.mark.meta  # about 30 s: each hung test holds a worker for its limit and the grace
def test_a_port_that_swallows_the_time_limit_gets_a_verdict_in_time(tmp_path: Path) -> None:
    """Its write waits on its own lock and swallows every exception, the time limit's included:
    the watchdog ends the worker, the write's clause fails as hung (not as the implementation's
    own give-up after a minute), and the run ends well before a minute per hung test."""
    started = time.monotonic()
    run = cordspec(
        "run", "--impl", "tests.impls.deadlocks_swallowing", "--timeout", "2",
        "--report", "r.json", "--", "-k", SWALLOWED_SELECTION,
        cwd=tmp_path,
    )  # fmt: skip
    took = time.monotonic() - started
    assert run.code == 1, run.why()
    clauses = {c["id"]: c for c in run.json("r.json")["clauses"]}
    write = clauses["CORD-WRITE-1"]
    assert write["status"] == "failed" and "hung after 2 s" in write["reason"], write
    assert "gave up" not in run.out, run.why()
    assert took < 55, f"the verdict took {took:.0f} s"


def test_a_one_bug_port_gets_a_short_console_that_says_why(tmp_path: Path) -> None:
    """The whole console output of a port with one bug fits 320 lines, clause table included; each
    failed clause says its failing check and how to rerun it; the full output is in a file."""
    run = cordspec("run", "--impl", "tests.impls.broken_cord", "--output", "full.log", cwd=tmp_path)
    assert run.code == 1, run.why()
    lines = run.out.splitlines()
    assert len(lines) <= 320, len(lines)
    why = [i for i, line in enumerate(lines) if re.match(r"[A-Z]+-[A-Z]+-\d+ failed:", line)]
    assert [lines[i].split()[0] for i in why] == ["CORD-WRITE-1"], why  # one bug, one clause
    shown = " ".join(lines[why[0] : why[0] + 2])  # then a test of its own that showed it
    assert "suite/test_cord.py::" in shown and "bytes_subclass" not in shown, shown
    rerun = [line for line in lines if line.startswith("    rerun: ")]
    assert rerun and all("--hypothesis-seed=" in line for line in rerun), rerun
    assert f"is in {tmp_path / 'full.log'}" in lines[-1] or "full.log" in lines[-1], lines[-1]
    assert not any(line.startswith("E   ") for line in lines)  # pytest's failure details
    full = (tmp_path / "full.log").read_text("utf-8")
    assert " FAILURES " in full and any(ln.startswith("E   ") for ln in full.splitlines())
