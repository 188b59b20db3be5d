"""Tests of the deviation file parser (conformance.run.deviations)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import suite
from conformance.adapters import load_implementation
from conformance.api import ImplementationError
from conformance.run import deviations
from conformance.run.deviations import (
    Deviation,
    builtin_deviations_path,
    parse_deviations,
    read_deviations,
    reason_clauses,
    suite_test_names,
    unmatched,
)
from conformance.run.spec import load_spec
from tests.children import subprocess_env

SUITE = Path(suite.__file__).parent

pytest_plugins = ("pytester",)


def test_targets_and_reasons() -> None:
    found = parse_deviations(
        "CORD-WRITE-1 pieces are written in reverse\n"
        "test_order_into_a_real_file   the same, by test name\n",
        "x.deviations",
    )
    assert found == {
        "CORD-WRITE-1": Deviation("CORD-WRITE-1", "pieces are written in reverse", 1),
        "test_order_into_a_real_file": Deviation(
            "test_order_into_a_real_file", "the same, by test name", 2
        ),
    }


def test_comments_and_blank_lines_are_ignored() -> None:
    found = parse_deviations(
        "# ExecuTorch 1.5.1\n"
        "\n"
        "   # an indented comment\n"
        "HOOK-LOW-2 moves the blob without its digest # see ticket #123\n"
        "  \t \n"
        "#HOOK-LOW-3 commented out, so not a deviation\n"
    )
    assert list(found) == ["HOOK-LOW-2"]
    # a '#' after the target belongs to the reason
    assert found["HOOK-LOW-2"].reason == "moves the blob without its digest # see ticket #123"
    assert found["HOOK-LOW-2"].line == 4


def test_surrounding_whitespace_and_tabs() -> None:
    found = parse_deviations("  NDS-MERGE-6\tnot atomic  \n")
    assert found == {"NDS-MERGE-6": Deviation("NDS-MERGE-6", "not atomic", 1)}


@pytest.mark.parametrize("line", ["CORD-WRITE-1", "CORD-WRITE-1   ", "CORD-WRITE-1\t"])
def test_a_target_without_reason_is_an_error(line: str) -> None:
    with pytest.raises(ValueError, match=r"^x\.deviations:2: 'CORD-WRITE-1' has no reason$"):
        parse_deviations(f"# header\n{line}\n", "x.deviations")


def test_a_target_listed_twice_is_an_error() -> None:
    with pytest.raises(ValueError) as caught:
        parse_deviations("NDS-KEY-5 first\nNDS-KEY-6 other\nNDS-KEY-5 second\n", "x.deviations")
    assert str(caught.value) == "x.deviations:3: 'NDS-KEY-5' listed twice (first at line 1)"


def test_every_problem_is_reported_with_its_line() -> None:
    with pytest.raises(ValueError) as caught:
        parse_deviations("A-1\nB-1 ok\nB-1 again\n# fine\nC-1\n", "f")
    assert str(caught.value).splitlines() == [
        "f:1: 'A-1' has no reason",
        "f:3: 'B-1' listed twice (first at line 2)",
        "f:5: 'C-1' has no reason",
    ]


def test_empty_text_means_no_deviations() -> None:
    assert parse_deviations("") == {}
    assert parse_deviations("# only comments\n\n") == {}


def test_read_deviations(tmp_path: Path) -> None:
    path = tmp_path / "impl.deviations"
    assert read_deviations(path) == {}  # an absent file means none
    path.write_text("FBD-CLOSE-7 keeps quiet\n", encoding="utf-8")
    assert read_deviations(path) == {"FBD-CLOSE-7": Deviation("FBD-CLOSE-7", "keeps quiet", 1)}
    path.write_text("FBD-CLOSE-7\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))}:1: .FBD-CLOSE-7. has no reason$"
    ):
        read_deviations(path)


def test_a_file_is_parsed_once_while_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "impl.deviations"
    path.write_text("FBD-CLOSE-7 keeps quiet\n", encoding="utf-8")
    parsed: list[str] = []

    def counting(text: str, source: str = "", version: str | None = None) -> dict[str, Deviation]:
        parsed.append(source)
        return parse_deviations(text, source, version)

    monkeypatch.setattr(deviations, "parse_deviations", counting)
    first = read_deviations(path)
    first.clear()  # a caller's copy: the next read is whole again
    assert read_deviations(path) == {"FBD-CLOSE-7": Deviation("FBD-CLOSE-7", "keeps quiet", 1)}
    assert parsed == [str(path)]
    path.write_text("FBD-CLOSE-8 by name\nFBD-CLOSE-7 keeps quiet\n", encoding="utf-8")
    assert list(read_deviations(path)) == ["FBD-CLOSE-8", "FBD-CLOSE-7"]
    assert parsed == [str(path), str(path)]


def test_an_implementation_is_loaded_once_per_process() -> None:
    first = load_implementation("tests.impls.nohooks")
    assert load_implementation("tests.impls.nohooks") is first
    with pytest.raises(ImplementationError):
        load_implementation("tests.impls.no_such_module")


def test_builtin_deviations_path() -> None:
    path = builtin_deviations_path("executorch")
    assert path.name == "executorch.deviations"
    assert path.parent.name == "adapters"
    assert path.parent.joinpath("__init__.py").is_file()


# --- lines for some releases --------------------------------------------------------------------

RELEASES = (
    "[1.0.1..1.4.1] NDS-ADD-2 pte_data maps a key to an int\n"
    "[1.5.0..] NDS-KEY-5 re-adding under another tag is a no-op\n"
    "[1.2.0, 1.3.1] test_x only these two\n"
    "CORD-WRITE-3 every release\n"
)


@pytest.mark.parametrize(
    ("version", "targets"),
    [
        ("1.0.1", {"NDS-ADD-2", "CORD-WRITE-3"}),
        ("1.2.0", {"NDS-ADD-2", "test_x", "CORD-WRITE-3"}),
        ("1.4.1", {"NDS-ADD-2", "CORD-WRITE-3"}),
        ("1.5.0", {"NDS-KEY-5", "CORD-WRITE-3"}),
        ("1.5.1+cpu", {"NDS-KEY-5", "CORD-WRITE-3"}),
        (None, {"CORD-WRITE-3"}),
        ("unknown", {"CORD-WRITE-3"}),
    ],
)
def test_a_line_applies_to_the_releases_it_names(version: str | None, targets: set[str]) -> None:
    assert set(parse_deviations(RELEASES, "x", version)) == targets


def test_one_target_may_have_a_reason_per_release() -> None:
    text = "[..1.4.1] NDS-ADD-2 one reason\n[1.5.0..] NDS-ADD-2 another\n"
    assert parse_deviations(text, "x", "1.4.1")["NDS-ADD-2"].reason == "one reason"
    assert parse_deviations(text, "x", "1.5.0")["NDS-ADD-2"].reason == "another"


@pytest.mark.parametrize("tag", ["[]", "[1.x]", "[..]", "[1.0..two]"])
def test_a_malformed_release_list_is_refused(tag: str) -> None:
    with pytest.raises(ValueError, match=r"x:1: bad release"):
        parse_deviations(f"{tag} NDS-ADD-2 why\n", "x", "1.0.1")


def test_releases_without_a_target_are_refused() -> None:
    with pytest.raises(ValueError, match=r"x:1: releases but no target"):
        parse_deviations("[1.0.1]\n", "x", "1.0.1")


@pytest.mark.parametrize(
    "target", ["NDS-MERGE-6:", "- NDS-MERGE-6", "nds-merge-6", "NDS-MERGE", "Test_x", "TestFoo"]
)
def test_a_target_of_another_shape_is_an_error(target: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_deviations(f"# header\n{target} a reason\n", "x.deviations")
    first = target.split()[0]
    assert str(caught.value) == (
        f"x.deviations:2: {first!r} is neither a clause id (like NDS-MERGE-6) nor a test name "
        "(test_name, test_name[param] or TestClass::test_name)"
    )


CLAUSES = ("NDS-MERGE-6", "FBD-READ-1")
TESTS = frozenset({"test_merge", "test_vector"})


def test_targets_that_match_a_clause_or_a_test_are_kept() -> None:
    found = parse_deviations("NDS-MERGE-6 a\ntest_merge b\ntest_vector[001-x] c\n", "x.deviations")
    assert unmatched(found, CLAUSES, TESTS, ["test_merge", "test_vector[001-x]"]) == []
    # a case of a function this run did not collect (e.g. its module was --ignore'd) is kept
    assert unmatched(found, CLAUSES, TESTS, ["test_merge"]) == []


def test_targets_that_match_nothing_are_named_with_their_line() -> None:
    found = parse_deviations(
        "NDS-MERGE-6 fine\nNDS-MERGE-66 no such clause\ntest_mreg a typo\n"
        "test_vector[999-gone] no such case\n",
        "x.deviations",
    )
    assert unmatched(found, CLAUSES, TESTS, ["test_vector[001-x]"]) == [
        "x.deviations:2: 'NDS-MERGE-66' is not a clause of the spec",
        "x.deviations:3: 'test_mreg' names no test of the suite",
        "x.deviations:4: 'test_vector[999-gone]': test_vector has no such case",
    ]


def test_the_suites_test_names_are_read_from_its_modules() -> None:
    names = suite_test_names(SUITE)
    assert {"test_core_store_machine", "test_vector", "test_output_is_a_snapshot"} <= names
    assert not [n for n in names if not n.startswith("test")]


def test_the_executorch_deviations_all_match() -> None:
    found = read_deviations(builtin_deviations_path("executorch"))
    assert found
    assert unmatched(found, load_spec().clauses, suite_test_names(SUITE)) == []


# --- deviations by clause, end to end in pytester ------------------------------------------------

PRELUDE = """
import pytest

from conformance.harness.checks import ClauseFailure

clause = pytest.mark.clause
"""
"""What each fake suite below starts with: its imports and the ``clause`` marker."""


def _deviations_run(
    pytester: pytest.Pytester, suite: str, deviations: str, *args: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """``suite`` run in core with ``deviations`` declared and a JSON report: the result and the
    report."""
    pytester.makepyfile(test_fake=PRELUDE + suite)
    (pytester.path / "dev.txt").write_text(deviations, encoding="utf-8")
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:benchmark", "--cordspec-deviations", "dev.txt",
        "--cordspec-report", "r.json", "--cordspec-profile", "core", *args,
    )  # fmt: skip
    data: dict[str, Any] = json.loads((pytester.path / "r.json").read_text("utf-8"))
    return result, data


CLAUSE_SUITE = """

@clause("CORD-WRITE-1")
def test_write_check_fails():
    assert False, "pieces reversed"


@clause("CORD-WRITE-1")
def test_write_check_passes():
    pass


@clause("CORD-WRITE-1", "CORD-WRITE-2")
def test_machine_fails_write_1_only():
    raise ClauseFailure("step 3: pieces reversed", ("CORD-WRITE-1",))


@clause("CORD-WRITE-2")
def test_write_2_passes():
    pass


@clause("CORD-BYTES-1", "CORD-LEN-1")
def test_declared_machine():
    raise ClauseFailure("bytes differ", ("CORD-BYTES-1",))


@clause("CORD-LEN-1")
def test_len_passes():
    pass


@clause("CORD-INIT-1")
def test_declared_but_fixed():
    pass


@clause("CORD-INIT-2")
@pytest.mark.relies_on("CORD-WRITE-1")
def test_blocked_by_a_declared_clause():
    assert False, "read back wrong"


@clause("CORD-APPEND-1")
def test_undeclared_failure():
    assert False, "a new bug"
"""

CLAUSE_DEVIATIONS = """\
CORD-WRITE-1  pieces are written in reverse
CORD-INIT-1  declared, but no check of it fails
test_declared_machine  CORD-BYTES-1: bytes are wrong
"""


def _clause_run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, str]]:
    result, data = _deviations_run(pytester, CLAUSE_SUITE, CLAUSE_DEVIATIONS, *args)
    return result, {c["id"]: c["status"] for c in data["clauses"]}


def test_a_declared_clause_expects_its_failing_checks_and_passes_the_rest(
    pytester: pytest.Pytester,
) -> None:
    result, status = _clause_run(pytester)
    outcomes = result.parseoutcomes()
    assert "xpassed" not in outcomes, result.stdout.str()
    # the two declared failures of CORD-WRITE-1, the blocked one, the declared test's
    assert outcomes["xfailed"] == 4, outcomes
    assert outcomes["failed"] == 1, outcomes  # test_undeclared_failure only
    assert status["CORD-WRITE-1"] == "expected deviation"
    assert status["CORD-WRITE-2"] == "passed"  # the machine's failure was WRITE-1's check
    assert status["CORD-BYTES-1"] == "expected deviation"
    assert status["CORD-LEN-1"] == "passed"  # a test line's xfail spreads to no other clause
    assert status["CORD-INIT-1"] == "deviation fixed"
    # its only test stopped at CORD-WRITE-1's declared failure: it could not check CORD-INIT-2,
    # and the deviation explains why: masked, not untested (which would fail the run)
    assert status["CORD-INIT-2"] == "masked"
    assert status["CORD-APPEND-1"] == "failed"
    result.stdout.fnmatch_lines(["CORD-INIT-1 * deviation fixed *declared as a deviation*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_run_whose_declared_clauses_all_fail_conforms_with_deviations(
    pytester: pytest.Pytester,
) -> None:
    result, status = _clause_run(pytester, "-k", "not fixed and not undeclared and not blocked")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    deviating = {c for c, s in status.items() if s == "expected deviation"}
    assert deviating == {"CORD-WRITE-1", "CORD-BYTES-1"}


def test_a_blocked_failure_is_not_hidden_behind_a_declared_clause_that_is_fixed(
    pytester: pytest.Pytester,
) -> None:
    """CORD-WRITE-1 is declared, but in this run none of its own checks fails: the failure of a
    test relying on it is a failure of the test's own clause, not an expected deviation."""
    result, status = _clause_run(pytester, "-k", "blocked or write_check_passes")
    assert status["CORD-WRITE-1"] == "deviation fixed"
    assert status["CORD-INIT-2"] == "failed"
    assert result.ret == pytest.ExitCode.TESTS_FAILED


MASKED_SUITE = """

@clause("CORD-WRITE-1")
def test_write_check_fails():
    assert False, "pieces reversed"


@clause("CORD-APPEND-1", "CORD-WRITE-1")
def test_names_a_declared_clause_too():
    assert False, "read back wrong"


@clause("CORD-INIT-2")
@pytest.mark.relies_on("CORD-WRITE-1")
def test_relies_on_a_declared_clause():
    assert False, "read back wrong"
"""


def _masked_run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    return _deviations_run(pytester, MASKED_SUITE, "CORD-WRITE-1  pieces reversed\n", *args)


def test_a_failure_explained_by_a_declared_clause_masks_the_tests_other_clauses(
    pytester: pytest.Pytester,
) -> None:
    """A failure that names no clause, of a test that names a declared clause among its own or
    relies on one, counts against that clause: the test's other clauses are masked (not checked,
    and the deviation says why), which does not fail the run, and the verdict counts them."""
    result, data = _masked_run(pytester, "-k", "test_")
    status = {c["id"]: (c["status"], c["reason"]) for c in data["clauses"]}
    assert status["CORD-WRITE-1"] == ("expected deviation", "CORD-WRITE-1: pieces reversed")
    assert status["CORD-APPEND-1"] == (
        "masked",
        "test_fake.py::test_names_a_declared_clause_too stopped at an expected deviation of "
        "CORD-WRITE-1",
    )
    assert status["CORD-INIT-2"] == (
        "masked",
        "test_fake.py::test_relies_on_a_declared_clause relies on declared CORD-WRITE-1",
    )
    verdict = data["verdicts"]["core"]
    assert (verdict["result"], verdict["masked"], verdict["deviations"]) == (
        "conforms-with-deviations",
        2,
        1,
    )
    assert "(0/3 passed, 2 masked by them)" in verdict["verdict"], verdict
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()


def test_a_declared_clause_that_fails_in_no_test_of_its_own_masks_nothing(
    pytester: pytest.Pytester,
) -> None:
    """Without a failing test of CORD-WRITE-1's own, the failure of a test that also names it is
    a failure of both its clauses: a known deviation hides no new one."""
    result, data = _masked_run(pytester, "-k", "declared_clause_too")
    status = {c["id"]: c["status"] for c in data["clauses"]}
    assert status["CORD-APPEND-1"] == "failed"
    assert status["CORD-WRITE-1"] == "failed"
    assert result.ret == pytest.ExitCode.TESTS_FAILED


# --- over-declaration: a declaration is believed only where a check of its clause fails ----------

OVER_SUITE = """

@clause("CORD-WRITE-1")
def test_write_check_fails():
    raise ClauseFailure("pieces reversed", ("CORD-WRITE-1",))


@clause("CORD-INIT-2")
@pytest.mark.relies_on("CORD-WRITE-1")
def test_stops_at_write_1s_check():
    raise ClauseFailure("pieces reversed", ("CORD-WRITE-1",))


@clause("CORD-APPEND-1", "CORD-APPEND-2")
def test_line_names_one_clause():
    assert False, "a plain assert names no clause"


@clause("CORD-APPEND-2")
def test_append_2_passes():
    pass


@clause("CORD-LEN-1")
def test_line_names_a_clause_whose_check_held():
    raise ClauseFailure("pieces reversed", ("CORD-WRITE-1",))


@clause("CORD-LEN-1")
def test_len_passes():
    pass
"""

HONEST = """\
CORD-WRITE-1  pieces are written in reverse
test_line_names_one_clause  CORD-APPEND-1: appends are lost
"""
OVER = """\
CORD-INIT-2  its only test stops at CORD-WRITE-1's check
test_line_names_a_clause_whose_check_held  CORD-LEN-1: said of the wrong clause
"""


def _over_run(pytester: pytest.Pytester, deviations: str) -> tuple[int, dict[str, list[str]]]:
    # a partial run: the other clauses are not run, not untested
    result, data = _deviations_run(pytester, OVER_SUITE, deviations, "-k", "test_")
    return result.ret, {c["id"]: [c["status"], c["reason"]] for c in data["clauses"]}


def test_a_test_lines_failure_counts_against_the_clauses_its_reason_names(
    pytester: pytest.Pytester,
) -> None:
    """A failure naming no clause, of a test a test line declares with "CORD-APPEND-1: ...",
    counts against CORD-APPEND-1 alone: the test's other clause passes in its own test; a test
    stopped at another clause's declared check leaves its own clause masked."""
    ret, status = _over_run(pytester, HONEST)
    assert status["CORD-APPEND-1"][0] == "expected deviation"
    assert status["CORD-APPEND-2"][0] == "passed"
    assert status["CORD-WRITE-1"] == [
        "expected deviation",
        "CORD-WRITE-1: pieces are written in reverse",
    ]
    assert status["CORD-INIT-2"][0] == "masked"
    assert status["CORD-LEN-1"][0] == "passed"
    assert ret == pytest.ExitCode.OK


def test_an_over_declared_clause_reads_deviation_fixed(pytester: pytest.Pytester) -> None:
    """A declared clause whose tests stop only at another clause's check, and a clause a test
    line names whose failing check was another's, had no check of theirs fail: "deviation
    fixed", failing the run, never "expected deviation"."""
    ret, status = _over_run(pytester, HONEST + OVER)
    assert status["CORD-INIT-2"][0] == "deviation fixed"
    assert "stopped at another's check" in status["CORD-INIT-2"][1]
    assert status["CORD-LEN-1"][0] == "deviation fixed"
    assert "test_line_names_a_clause_whose_check_held's line declares it" in status["CORD-LEN-1"][1]
    assert "the check that failed is CORD-WRITE-1's" in status["CORD-LEN-1"][1]
    assert status["CORD-WRITE-1"][0] == "expected deviation"
    assert ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("reason", "clauses"),
    [
        ("FBD-MOVE-4, FBD-MOVE-5: mkstemp's descriptor", ("FBD-MOVE-4", "FBD-MOVE-5")),
        ("FBD-INTR-1: weakref's exit hook", ("FBD-INTR-1",)),
        ("(1.5.1's CudaBackend) the blob", ()),
        ("nothing to interrupt (NDS-ALIGN-2)", ()),
        ("FBD-INIT-5 without a colon", ()),
    ],
)
def test_reason_clauses(reason: str, clauses: tuple[str, ...]) -> None:
    assert reason_clauses(reason) == clauses


# --- a declared case the run leaves out is not run, never unmatched ------------------------------

CASE_SUITE = """
import pytest


@pytest.mark.parametrize(
    "n",
    [
        pytest.param(1, marks=pytest.mark.clause("CORD-WRITE-1"), id="core"),
        pytest.param(2, marks=pytest.mark.clause("FBD-INIT-5"), id="strict"),
    ],
)
def test_case(n):
    assert n == 1
"""


def _case_run(
    pytester: pytest.Pytester, deviations: str, *args: str
) -> tuple[pytest.RunResult, str]:
    pytester.makepyfile(test_fake=CASE_SUITE)
    (pytester.path / "dev.txt").write_text(deviations, encoding="utf-8")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:benchmark", "--cordspec-deviations", "dev.txt", *args,
    )  # fmt: skip
    return result, result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("parallel", [(), ("-p", "xdist", "-n", "2")], ids=["serial", "xdist"])
@pytest.mark.parametrize(
    "selection",
    [("--cordspec-profile", "core"), ("-k", "core"), ("--cordspec-clause", "CORD-WRITE-1")],
    ids=["profile", "keyword", "clause"],
)
def test_a_declared_case_the_run_leaves_out_is_not_an_error(
    pytester: pytest.Pytester, selection: tuple[str, ...], parallel: tuple[str, ...]
) -> None:
    result, out = _case_run(
        pytester, "test_case[strict]  FBD-INIT-5: fails here\n", *selection, *parallel
    )
    assert "match nothing" not in out, out
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out
    assert "1 passed" in out, out


@pytest.mark.parametrize("parallel", [(), ("-p", "xdist", "-n", "2")], ids=["serial", "xdist"])
def test_a_case_that_does_not_exist_stops_the_run(
    pytester: pytest.Pytester, parallel: tuple[str, ...]
) -> None:
    result, out = _case_run(
        pytester, "test_case[other]  FBD-INIT-5: no such case\n", "-k", "core", *parallel
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR, out
    assert "'test_case[other]': test_case has no such case" in out, out
    assert "passed" not in out, out


# --- the same report on every plain run --------------------------------------------------------

MUTANT = "tests.mutants.merge_drops_layout:IMPLEMENTATION"


@pytest.mark.meta  # runs the suite four times in child processes
def test_a_mutant_declared_by_its_first_runs_failures_conforms_on_every_plain_run(
    tmp_path: Path,
) -> None:
    """A port whose merge drops ``tensor_layout``, declared by the clauses its first plain run
    failed, conforms with those deviations on each of the next three plain runs: every run draws
    the same examples, so no declared clause reads "deviation fixed" in one run and no other
    clause fails in the next."""
    env = subprocess_env(COLUMNS="100")
    # the tests that can see a merge's layouts (not the child-process timing tests, which a
    # loaded machine can fail whatever the implementation)
    selection = ("--", "-k", "store_machine or merge or vector")

    def run(*args: str) -> tuple[int, dict[str, Any]]:
        proc = subprocess.run(
            [sys.executable, "-m", "conformance", "run", "--impl", MUTANT, "--report",
             "r.json", *args, *selection],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800, check=False,
        )  # fmt: skip
        data = json.loads((tmp_path / "r.json").read_text("utf-8"))
        return proc.returncode, data

    status, first = run()
    assert status == 1
    failed = [c["id"] for c in first["clauses"] if c["status"] == "failed"]
    assert "NDS-MERGE-1" in failed, failed
    (tmp_path / "mutant.deviations").write_text(
        "".join(f"{c}  drops tensor_layout on merge\n" for c in failed), "utf-8"
    )
    for _ in range(3):
        status, data = run("--deviations", "mutant.deviations")
        statuses = {c["id"]: c["status"] for c in data["clauses"]}
        assert {c: statuses[c] for c in failed} == dict.fromkeys(failed, "expected deviation")
        assert status == 4, {c: s for c, s in statuses.items() if s not in ("passed", "not run")}
