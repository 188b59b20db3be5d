"""Tests of the clause report (conformance.run.report) and of the plugin hooks that produce it."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import reference
from conformance.adapters import from_namespace, load_implementation
from conformance.api import HOOKS, Capability, without
from conformance.run.report import (
    ClauseResult,
    Collector,
    Header,
    Kind,
    Outcome,
    Report,
    Result,
    Status,
    build_report,
    clause_results,
    clause_status,
    first_sentence,
    make_header,
    report_format,
    report_schema,
    verdict,
    with_reliance,
)
from conformance.run.spec import Profile, Spec, load_spec, parse_spec

pytest_plugins = ("pytester",)

# inner runs: no cache files, no pytest-benchmark notices about xdist
QUIET = ("-p", "no:cacheprovider", "-p", "no:benchmark")

SCHEMA = report_schema()

SPEC = parse_spec(
    textwrap.dedent(
        """\
        # test spec

        Version: 9.9

        ## 2. Things

        #### A-1 · MUST · core

        It MUST work.

        *Rationale:* r.

        #### A-2 · MUST NOT · core

        It MUST NOT break.

        *Rationale:* r.

        #### A-3 · SHOULD · core

        It SHOULD be fast.

        *Rationale:* r.

        #### A-4 · MAY · core

        It MAY | cache.

        *Rationale:* r.

        ## 3. Extras

        #### B-1 · MUST · strict

        It MUST be strict.

        *Rationale:* r.

        #### B-2 · SHOULD · strict

        It SHOULD be kind.

        *Rationale:* r.
        """
    )
)

P = Outcome.PASSED
F = Outcome.FAILED
D = Outcome.DEVIATION
NA = Outcome.NOT_APPLICABLE
S = Outcome.SKIPPED


def result(outcome: Outcome, *clauses: str, reason: str = "", nodeid: str = "") -> Result:
    return Result(
        nodeid or f"t_{outcome.name.lower()}_{'_'.join(clauses)}", clauses, outcome, reason
    )


def header(profile: Profile = "strict") -> Header:
    return Header("impl", "1.0", "impl.module", profile, "9.9", date="2024-01-01T00:00:00+00:00")


def report(profile: Profile, *results: Result, spec: Spec = SPEC) -> Report:
    return build_report(spec, header(profile), list(results))


def statuses(rep: Report) -> dict[str, str]:
    return {c.clause.id: c.status.value for c in rep.clauses}


# --- clause status ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ((), Status.UNTESTED),
        ((P,), Status.PASSED),
        ((P, P), Status.PASSED),
        ((F,), Status.FAILED),
        ((P, F), Status.FAILED),
        ((D, F), Status.FAILED),
        ((NA, F), Status.FAILED),
        ((S, F), Status.FAILED),
        ((D,), Status.DEVIATION),
        ((P, D), Status.DEVIATION),
        ((NA, D), Status.DEVIATION),
        ((NA, P), Status.PASSED),
        ((S, P), Status.PASSED),
        ((NA,), Status.NOT_APPLICABLE),
        ((NA, NA), Status.NOT_APPLICABLE),
        ((NA, S), Status.UNTESTED),
        ((S,), Status.UNTESTED),
    ],
    ids=lambda v: "-".join(o.name for o in v) if isinstance(v, tuple) else v.name,
)
def test_clause_status(outcomes: tuple[Outcome, ...], expected: Status) -> None:
    tests = [result(o, "A-1", nodeid=f"t{i}") for i, o in enumerate(outcomes)]
    assert clause_status(tests)[0] is expected


def test_clause_status_reasons() -> None:
    assert clause_status([result(P, "A-1")]) == (Status.PASSED, "")
    assert clause_status([result(F, "A-1", reason="boom", nodeid="t::x")]) == (
        Status.FAILED,
        "t::x: boom",
    )
    assert clause_status([result(D, "A-1", reason="A-1: known")]) == (
        Status.DEVIATION,
        "A-1: known",
    )
    assert clause_status([result(NA, "A-1", reason="no hooks")]) == (
        Status.NOT_APPLICABLE,
        "no hooks",
    )
    assert clause_status([result(S, "A-1", reason="needs tmpfs")]) == (
        Status.UNTESTED,
        "skipped: needs tmpfs",
    )
    assert clause_status([]) == (Status.UNTESTED, "")


def test_a_test_that_saw_nothing_credits_nothing() -> None:
    """A test the implementation was out of sight of (``conformance.harness.observe``) leaves its
    clauses untested, although another test passed them; a failure still fails them."""
    unseen = result(S, "A-1", reason="unobserved: no os.replace seen", nodeid="t::faults")
    assert clause_status([result(P, "A-1"), unseen]) == (
        Status.UNTESTED,
        "t::faults: unobserved: no os.replace seen",
    )
    assert clause_status([result(F, "A-1"), unseen])[0] is Status.FAILED
    assert clause_status([result(P, "A-1"), result(S, "A-1", reason="other")])[0] is Status.PASSED
    rep = report("core", result(P, "A-1", "A-2", "A-3", "A-4"), unseen)
    assert statuses(rep)["A-1"] == "untested" and rep.verdict.kind is Kind.DOES_NOT_CONFORM


def test_clause_results_cover_the_profile_in_document_order() -> None:
    core = clause_results(SPEC, "core", [result(P, "A-1", "B-1", "A-1")])
    assert [c.clause.id for c in core] == ["A-1", "A-2", "A-3", "A-4"]
    strict = clause_results(SPEC, "strict", [result(P, "A-1", "B-1", "A-1")])
    assert [c.clause.id for c in strict] == ["A-1", "A-2", "A-3", "A-4", "B-1", "B-2"]
    # a test naming a clause twice counts once for it
    assert [len(c.tests) for c in strict] == [1, 0, 0, 0, 1, 0]


# --- verdicts -----------------------------------------------------------------------------------

ALL_CORE_PASS = (result(P, "A-1"), result(P, "A-2"))


def test_conforms() -> None:
    rep = report("core", *ALL_CORE_PASS)
    assert rep.verdict.text == "CONFORMS (2/2)"
    assert rep.verdict.kind is Kind.CONFORMS
    assert list(rep.verdicts) == ["core"]
    assert rep.exit_ok


def test_should_and_may_clauses_never_change_the_verdict() -> None:
    failing_should = report("core", *ALL_CORE_PASS, result(F, "A-3"))
    assert failing_should.verdict.kind is Kind.CONFORMS
    # ...which says the SHOULD clauses that failed
    assert failing_should.verdict.text == "CONFORMS (2/2); SHOULD FAILED: A-3"
    assert failing_should.verdict.to_json()["should_failed"] == ["A-3"]
    assert statuses(failing_should)["A-3"] == "failed"
    # ...but a failed test still fails the run
    assert not failing_should.exit_ok
    assert failing_should.exit_lines() == ["the run fails: 1 test(s) failed"]
    deviating_may = report("core", *ALL_CORE_PASS, result(D, "A-4"))
    assert deviating_may.verdict.text == "CONFORMS (2/2)"
    assert deviating_may.exit_ok
    untested_should = report("strict", *ALL_CORE_PASS, result(P, "B-1"))
    assert statuses(untested_should)["B-2"] == "untested"
    assert untested_should.verdicts["strict"].text == "CONFORMS (3/3)"


def test_not_applicable_clauses_are_not_counted() -> None:
    rep = report("core", result(P, "A-1"), result(NA, "A-2", reason="no hooks"))
    assert rep.verdict.text == "CONFORMS (1/1)"
    assert rep.verdict.not_applicable == 1
    assert rep.exit_ok


def test_conforms_with_declared_deviations() -> None:
    rep = report("core", result(P, "A-1"), result(D, "A-2", reason="A-2: known"))
    assert rep.verdict.text == "CONFORMS WITH 1 DECLARED DEVIATIONS (1/2 passed)"
    assert rep.verdict.kind is Kind.DEVIATES
    assert rep.exit_ok


def test_a_failed_must_clause_does_not_conform() -> None:
    rep = report("core", result(P, "A-1"), result(F, "A-2"))
    assert rep.verdict.text == "DOES NOT CONFORM (1 failed, 0 untested)"
    assert not rep.exit_ok


def test_an_untested_must_clause_does_not_conform() -> None:
    rep = report("core", result(P, "A-1"))
    assert rep.verdict.text == "DOES NOT CONFORM (0 failed, 1 untested)"
    assert not rep.exit_ok
    skipped_only = report("core", result(P, "A-1"), result(S, "A-2", reason="tmpfs"))
    assert skipped_only.verdict.text == "DOES NOT CONFORM (0 failed, 1 untested)"


def test_failed_and_deviating_clauses() -> None:
    rep = report("core", result(F, "A-1"), result(D, "A-2"))
    assert rep.verdict.text == "DOES NOT CONFORM (1 failed, 0 untested)"
    assert (rep.verdict.failed, rep.verdict.deviations, rep.verdict.passed) == (1, 1, 0)


def test_core_verdict_ignores_strict_clauses() -> None:
    rep = report("strict", *ALL_CORE_PASS, result(F, "B-1"))
    assert rep.verdicts["core"].text == "CONFORMS (2/2)"
    assert rep.verdicts["strict"].text == "DOES NOT CONFORM (1 failed, 0 untested)"
    assert not rep.exit_ok  # the chosen profile decides the exit status


def test_core_run_ignores_strict_clauses_named_by_a_test() -> None:
    rep = report("core", result(P, "A-1", "B-1"), result(P, "A-2"))
    assert [c.clause.id for c in rep.clauses] == ["A-1", "A-2", "A-3", "A-4"]
    assert rep.verdict.text == "CONFORMS (2/2)"


def test_verdict_counts_only_the_profile_asked_for() -> None:
    clauses = clause_results(SPEC, "strict", [result(P, "A-1"), result(P, "A-2")])
    assert verdict(clauses, "core").text == "CONFORMS (2/2)"
    assert verdict(clauses, "strict").text == "DOES NOT CONFORM (0 failed, 1 untested)"


def test_a_skipped_test_fails_the_run_but_not_the_verdict() -> None:
    rep = report("core", *ALL_CORE_PASS, result(S, "A-1", reason="needs tmpfs"))
    assert rep.verdict.kind is Kind.CONFORMS
    assert not rep.exit_ok
    assert rep.exit_lines() == [
        "the run fails: 1 test(s) skipped without a 'not applicable: ' reason"
    ]


# --- collecting reports -------------------------------------------------------------------------


def test_report(
    outcome: str,
    when: str = "call",
    longrepr: Any = None,
    props: Any = (("cordspec_clauses", "A-1 B-1"),),
    nodeid: str = "suite/t.py::test_x",
    **extra: Any,
) -> pytest.TestReport:
    return pytest.TestReport(
        nodeid,
        ("suite/t.py", 1, "test_x"),
        {},
        outcome,  # type: ignore[arg-type]  # a plain str stands in for the Literal
        longrepr,
        when,  # type: ignore[arg-type]  # a plain str stands in for the Literal
        user_properties=list(props),
        **extra,
    )


test_report.__test__ = False  # type: ignore[attr-defined]  # not a test, though named like one


def collect(*reports: pytest.TestReport) -> list[Result]:
    collector = Collector()
    for rep in reports:
        collector.add(rep)
    return collector.results()


def test_collector_passed() -> None:
    got = collect(
        test_report("passed", "setup"), test_report("passed"), test_report("passed", "teardown")
    )
    assert got == [Result("suite/t.py::test_x", ("A-1", "B-1"), P, "")]


def test_collector_orders_tests_by_node_id_whatever_order_they_finish_in() -> None:
    ids = [
        "suite/t.py::test_b",
        "suite/a.py::test_z[2]",
        "suite/t.py::test_a",
        "suite/a.py::test_z[1]",
    ]
    got = collect(*(test_report("passed", nodeid=i) for i in ids))
    assert [r.nodeid for r in got] == sorted(ids)
    assert collect(*(test_report("passed", nodeid=i) for i in reversed(ids))) == got


def test_collector_ignores_tests_without_clauses() -> None:
    collector = Collector()
    collector.add(test_report("failed", props=()))
    collector.add(test_report("passed", props=(("other", "x"),)))
    assert not collector.active
    assert collector.results() == []


def test_collector_reads_serialized_user_properties() -> None:
    # after pytest-xdist's serialization the (name, value) tuples are lists
    got = collect(test_report("passed", props=[["cordspec_clauses", "A-2"]]))
    assert got[0].clauses == ("A-2",)


def test_collector_not_applicable_in_setup() -> None:
    skip = (
        "suite/t.py",
        3,
        "Skipped: not applicable: tests.impls.nohooks provides no backend hooks",
    )
    got = collect(test_report("skipped", "setup", skip), test_report("passed", "teardown"))
    assert got[0].outcome is NA
    assert got[0].reason == "tests.impls.nohooks provides no backend hooks"


def test_collector_other_skip() -> None:
    got = collect(test_report("skipped", "call", ["suite/t.py", 3, "Skipped: needs tmpfs"]))
    assert (got[0].outcome, got[0].reason) == (S, "needs tmpfs")


def test_collector_expected_deviation() -> None:
    got = collect(
        test_report("passed", "setup"),
        test_report("skipped", "call", wasxfail="known deviation: A-1: reverses pieces"),
        test_report("passed", "teardown"),
    )
    assert (got[0].outcome, got[0].reason) == (D, "A-1: reverses pieces")


def test_collector_other_xfail_is_a_skip() -> None:
    got = collect(test_report("skipped", "call", wasxfail="flaky on this machine"))
    assert (got[0].outcome, got[0].reason) == (S, "xfail: flaky on this machine")


def test_collector_strict_xpass_is_a_failure() -> None:
    got = collect(test_report("failed", "call", "[XPASS(strict)] known deviation: A-1: nope"))
    assert got[0].outcome is F
    assert got[0].reason == "passed, but is marked as a known deviation: A-1: nope"


def test_collector_errors_in_setup_and_teardown() -> None:
    setup = collect(test_report("failed", "setup", "E   OSError: disk full\nmore"))
    assert (setup[0].outcome, setup[0].reason) == (F, "error in setup: E   OSError: disk full")
    teardown = collect(
        test_report("passed", "setup"),
        test_report("passed"),
        test_report("failed", "teardown", "Failed: placeholder(s) left behind: x"),
    )
    assert teardown[0].outcome is F
    assert teardown[0].reason == "error in teardown: Failed: placeholder(s) left behind: x"
    # a call failure is kept when teardown fails too
    both = collect(test_report("failed", "call", "boom"), test_report("failed", "teardown", "bang"))
    assert both[0].reason == "boom"


# --- header and formats -------------------------------------------------------------------------


def test_header_of_an_implementation_without_hooks() -> None:
    implementation = from_namespace(reference, "tests.impls.nohooks")
    when = datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
    got = make_header("tests.impls.nohooks", "core", load_spec(), implementation, date=when)
    assert (got.implementation, got.impl, got.profile) == (
        "reference",
        "tests.impls.nohooks",
        "core",
    )
    assert got.spec_version == load_spec().version
    assert got.date == "2024-05-06T07:08:09+00:00"
    assert dict(got.absent) == {
        "sweep": "reference provides no sweep",
        "copy-hook": "reference provides no backend hooks",
        "weights-hooks": "reference provides no backend hooks",
        "weights-key": "reference provides no backend hooks",
        "low-memory-weights": "reference provides no backend hooks",
    }


def test_header_of_the_reference_lists_nothing_absent() -> None:
    got = make_header("reference", "strict", load_spec(), load_implementation("reference"))
    assert (got.implementation, got.version, got.absent) == ("reference", reference.__version__, ())


def test_header_when_the_implementation_cannot_load() -> None:
    got = make_header("nope", "strict", SPEC, None, error="ImplementationError: gone")
    assert (got.implementation, got.version, got.error) == (
        "nope",
        "unknown",
        "ImplementationError: gone",
    )


@pytest.mark.parametrize(
    ("path", "kind"), [("r.md", "markdown"), ("dir/r.JSON", "json"), ("r.json", "json")]
)
def test_report_format(path: str, kind: str) -> None:
    assert report_format(path) == kind


@pytest.mark.parametrize("path", ["r.txt", "r", "r.html", "r.md.bak"])
def test_other_report_formats_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match=f"^{path}: unknown report format"):
        report_format(path)


MIXED = (
    result(P, "A-1"),
    result(D, "A-2", reason="A-2: declared"),
    result(F, "A-3", reason="x | y"),
    result(NA, "A-4", reason="absent"),
    result(S, "B-1", reason="tmpfs"),
)


def test_json_report_matches_the_schema() -> None:
    for rep in (report("strict", *MIXED), report("core", *ALL_CORE_PASS), report("core")):
        data = rep.to_json()
        jsonschema.Draft202012Validator(
            SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        ).validate(data)
    assert data["verdicts"]["core"]["verdict"] == "DOES NOT CONFORM (0 failed, 2 untested)"


def test_the_schema_is_valid_and_not_vacuous() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    data = report("strict", *MIXED).to_json()
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for mutate in (
        lambda d: d["clauses"][0].update(status="fine"),
        lambda d: d["verdicts"]["core"].pop("untested"),
        lambda d: d["verdicts"].update(extra={}),
        lambda d: d["clauses"][0]["tests"][0].update(outcome="xfailed"),
        lambda d: d.pop("implementation"),
        lambda d: d["verdicts"]["strict"].update(verdict="CONFORMS"),
    ):
        broken = json.loads(json.dumps(data))
        mutate(broken)
        assert not validator.is_valid(broken)


def test_json_content() -> None:
    data = report("strict", *MIXED).to_json()
    assert data["implementation"] == {"name": "impl", "version": "1.0", "impl": "impl.module"}
    assert (data["profile"], data["spec_version"]) == ("strict", "9.9")
    assert data["verdicts"]["strict"] == {
        "verdict": "DOES NOT CONFORM (0 failed, 1 untested); SHOULD FAILED: A-3",
        "covers": "strict",
        "without": [],
        "result": "does-not-conform",
        "passed": 1,
        "applicable": 3,
        "failed": 0,
        "deviations": 1,
        "untested": 1,
        "not_applicable": 0,
        "not_run": 0,
        "masked": 0,
        "should_failed": ["A-3"],
    }
    assert [(c["id"], c["status"], c["section"]) for c in data["clauses"]] == [
        ("A-1", "passed", "2. Things"),
        ("A-2", "expected deviation", "2. Things"),
        ("A-3", "failed", "2. Things"),
        ("A-4", "not applicable", "2. Things"),
        ("B-1", "untested", "3. Extras"),
        ("B-2", "untested", "3. Extras"),
    ]
    assert data["clauses"][1]["tests"] == [
        {
            "nodeid": "t_deviation_A-2",
            "outcome": "expected deviation",
            "reason": "A-2: declared",
            "failed_clauses": [],
            "relies_on": [],
            "blocked_by": [],
        }
    ]
    assert data["tests"] == {
        "passed": 1,
        "failed": 1,
        "expected_deviation": 1,
        "not_applicable": 1,
        "skipped": 1,
    }
    assert data["exit_ok"] is False


def test_markdown() -> None:
    md = report("strict", *MIXED).to_markdown()
    assert "| Implementation | impl 1.0 |" in md
    assert "- **core**: CONFORMS WITH 1 DECLARED DEVIATIONS (1/2 passed)" in md
    assert "- **strict**: DOES NOT CONFORM (0 failed, 1 untested)" in md
    assert "### 2. Things" in md and "### 3. Extras" in md
    assert "| A-3 | SHOULD | core | failed | 1 | t_failed_A-3: x \\| y |" in md
    assert "| A-4 | MAY | core | not applicable | 1 | absent |" in md
    assert "| `t_skipped_B-1` | skipped | tmpfs |" in md


def test_terminal_rows_fit_100_columns() -> None:
    long_reason = "a very long reason " * 20
    rep = report("strict", result(NA, "A-1", reason=long_reason), result(D, "B-1", reason="short"))
    rows = rep.clause_lines(100)
    assert all(len(row) <= 100 for row in rows)
    assert rows[0].startswith("A-1  MUST      core    not applicable      a very long reason")
    wrapped = [row for row in rows[1:] if row.startswith("      a very long")]
    assert len(wrapped) >= 2  # wrapped whole, never cut: its end is often what matters
    assert " ".join(r.strip() for r in rows[: 1 + len(wrapped)]).endswith(long_reason.strip())
    assert not any(row.endswith("...") for row in rows)
    rows = [row for row in rows if row not in wrapped]
    assert len(rows) == 6
    assert rows[4] == "B-1  MUST      strict  expected deviation  short"
    assert rows[1] == "A-2  MUST NOT  core    untested"
    assert rep.verdict_lines() == [
        "core:   DOES NOT CONFORM (0 failed, 1 untested)",
        "strict: DOES NOT CONFORM (0 failed, 1 untested)",
    ]


def test_write(tmp_path: Path) -> None:
    rep = report("core", *ALL_CORE_PASS)
    rep.write(tmp_path / "r.json")
    rep.write(tmp_path / "r.md")
    assert json.loads((tmp_path / "r.json").read_text("utf-8")) == rep.to_json()
    assert (tmp_path / "r.md").read_text("utf-8") == rep.to_markdown()
    with pytest.raises(FileNotFoundError):  # a missing directory is refused before a run
        rep.write(tmp_path / "sub" / "r.json")
    assert not (tmp_path / "sub").exists()
    with pytest.raises(ValueError, match="unknown report format"):
        rep.write(tmp_path / "r.txt")


def test_clause_result_is_frozen() -> None:
    c = report("core").clauses[0]
    assert isinstance(c, ClauseResult)
    with pytest.raises(AttributeError):
        c.status = Status.PASSED  # type: ignore[misc]  # assigning to a frozen field is the point


# --- the plugin, end to end in pytester ---------------------------------------------------------

FAKE_SUITE = """
import pytest

clause = pytest.mark.clause


@clause("CORD-INIT-1")
def test_passes():
    pass


@clause("CORD-INIT-2")
def test_fails():
    assert False, "boom"


@clause("CORD-INIT-3")
def test_not_applicable():
    pytest.skip("not applicable: no such capability here")


@clause("CORD-APPEND-1")
def test_plain_skip():
    pytest.skip("needs a tmpfs")


@clause("CORD-APPEND-2")
def test_deviates():
    assert False


@clause("CORD-APPEND-3")
def test_declared_but_passes():
    pass


@pytest.fixture
def broken():
    yield
    raise RuntimeError("teardown broke")


@clause("CORD-TYPE-1")
def test_teardown_error(broken):
    pass


@clause("FBD-INIT-5")
def test_strict_only():
    pass


def test_without_clause():
    pass
"""

DEVIATIONS = "test_deviates  fails here on purpose\nCORD-APPEND-3  declared, yet it passes\n"

EXPECTED = {
    "CORD-INIT-1": ("passed", ""),
    "CORD-INIT-2": ("failed", "test_fake.py::test_fails: AssertionError: boom"),
    "CORD-INIT-3": ("not applicable", "no such capability here"),
    "CORD-APPEND-1": ("untested", "skipped: needs a tmpfs"),
    "CORD-APPEND-2": ("expected deviation", "test_deviates: fails here on purpose"),
    "CORD-APPEND-3": (
        "deviation fixed",
        "declared as a deviation (declared, yet it passes), yet no check of it failed: remove "
        "its line from the deviations file",
    ),
    "CORD-TYPE-1": (
        "failed",
        "test_fake.py::test_teardown_error: error in teardown: RuntimeError: teardown broke",
    ),
    "FBD-INIT-5": ("passed", ""),
}


def fake_run(pytester: pytest.Pytester, *args: str, subprocess: bool = False) -> pytest.RunResult:
    pytester.makepyfile(test_fake=FAKE_SUITE)
    (pytester.path / "dev.txt").write_text(DEVIATIONS, encoding="utf-8")
    argv = [*QUIET, "--cordspec-deviations", "dev.txt", "--cordspec-report", "r.json", *args]
    if subprocess:
        return pytester.runpytest_subprocess(*argv)
    return pytester.runpytest(*argv)


def reported(pytester: pytest.Pytester) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / "r.json").read_text("utf-8"))
    return data


def test_plugin_reports_every_status(pytester: pytest.Pytester) -> None:
    result = fake_run(pytester, "--cordspec-report", "r.md", "--cordspec-profile", "strict")
    result.assert_outcomes(passed=5, failed=1, skipped=2, xfailed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    data = reported(pytester)
    got = {c["id"]: (c["status"], c["reason"]) for c in data["clauses"]}
    assert {k: got[k] for k in EXPECTED} == EXPECTED
    spec = load_spec()
    assert [c["id"] for c in data["clauses"]] == [c.id for c in spec.in_profile("strict")]
    rest = set(got.values()) - set(EXPECTED.values())
    explained = {c.id: c.untested for c in load_spec().clauses.values() if c.untested}
    assert explained  # NDS-ALIGN-3: the spec says why no test can check it
    assert {got[c] for c in explained} == {("not testable here", why) for why in explained.values()}
    assert rest - {got[c] for c in explained} == {("untested", "")}, rest
    assert list(data["verdicts"]) == ["core", "strict"]
    assert data["implementation"]["name"] == "reference"
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    md = (pytester.path / "r.md").read_text("utf-8")
    assert "| CORD-APPEND-2 | MUST | core | expected deviation | 1 |" in md
    out = result.stdout.str()
    lines = out[out.index("cordspec clause report") :].splitlines()[1:]
    section = lines[: next(i for i, line in enumerate(lines) if line.startswith("="))]
    commands = [line for line in section if line.startswith("    rerun: ")]  # not cut: copied
    assert commands and all(len(line) <= 100 for line in section if line not in commands), section
    result.stdout.fnmatch_lines(
        [
            "*cordspec clause report*",
            "implementation: reference * (--impl reference)",
            "CORD-INIT-3 * MUST * core * not applicable * no such capability here",
            "core:   DOES NOT CONFORM (3 failed, *",
            "strict: DOES NOT CONFORM (3 failed, *",
            "cordspec report written to r.json",
        ]
    )


def test_plugin_under_xdist_reports_the_same(pytester: pytest.Pytester) -> None:
    fake_run(pytester, "--cordspec-profile", "strict", subprocess=True)
    serial = reported(pytester)
    result = fake_run(
        pytester, "--cordspec-profile", "strict", "-p", "xdist", "-n", "2", subprocess=True
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    parallel = reported(pytester)
    assert parallel["verdicts"] == serial["verdicts"]
    assert [(c["id"], c["status"], c["reason"]) for c in parallel["clauses"]] == [
        (c["id"], c["status"], c["reason"]) for c in serial["clauses"]
    ]
    assert parallel["tests"] == serial["tests"]


def test_core_profile_leaves_strict_tests_out(pytester: pytest.Pytester) -> None:
    result = fake_run(pytester, "--cordspec-profile", "core")
    result.assert_outcomes(passed=4, failed=1, skipped=2, xfailed=1, errors=1, deselected=1)
    data = reported(pytester)
    assert list(data["verdicts"]) == ["core"]
    assert "FBD-INIT-5" not in {c["id"] for c in data["clauses"]}


def test_untested_clauses_fail_a_run_whose_tests_all_passed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_one="""
        import pytest

        @pytest.mark.clause("CORD-INIT-1")
        def test_one():
            pass
        """
    )
    result = pytester.runpytest(*QUIET, "--cordspec-profile", "core")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["core: DOES NOT CONFORM (0 failed, *"])


def test_runs_without_suite_tests_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        import pytest

        def test_plain():
            pass

        def test_skipped():
            pytest.skip("whatever")
        """
    )
    result = pytester.runpytest(*QUIET, "--cordspec-report", "r.json")
    assert result.ret == pytest.ExitCode.OK
    assert "cordspec clause report" not in result.stdout.str()
    result.stdout.fnmatch_lines(["cordspec: no suite test ran, so no report was written"])
    assert not (pytester.path / "r.json").exists()


def test_report_suffix_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain(): pass")
    result = pytester.runpytest(*QUIET, "--cordspec-report", "out/r.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--cordspec-report out/r.txt: unknown report format '.txt'*"])


def test_bad_deviation_files_are_usage_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=FAKE_SUITE)
    missing = pytester.runpytest(*QUIET, "--cordspec-deviations", "nope.txt")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--cordspec-deviations nope.txt: no such file*"])
    (pytester.path / "bad.txt").write_text("CORD-INIT-1\n", encoding="utf-8")
    bad = pytester.runpytest(*QUIET, "--cordspec-deviations", "bad.txt")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*bad.txt:1: 'CORD-INIT-1' has no reason*"])


def test_terminal_header_wraps_long_reasons_instead_of_cutting_them() -> None:
    why = "executorch.backends.cuda.cuda_backend does not import here: ModuleNotFoundError: triton"
    rep = build_report(
        SPEC, Header("et", "1.5.1", "executorch", "core", "9.9", (("low", why),)), []
    )
    lines = rep.header_lines(60)
    assert all(len(line) <= 60 for line in lines)
    assert " ".join(line.strip() for line in lines[2:]) == f"absent: low: {why}"


def test_terminal_row_of_a_failed_clause_names_the_test() -> None:
    rep = report(
        "core", result(F, "A-1", reason="AssertionError: boom", nodeid="suite/t.py::C::test_x[a]")
    )
    assert (
        rep.clause_lines()[0]
        == "A-1  MUST      core    failed              test_x[a]: AssertionError: boom"
    )
    assert rep.clauses[0].reason == "suite/t.py::C::test_x[a]: AssertionError: boom"


def test_markdown_lists_absent_capabilities() -> None:
    absent = (("copy-hook", "no hooks | here"), ("weights-key", "no store"))
    rep = build_report(SPEC, Header("x", "1", "x", "core", "9.9", absent), [])
    md = rep.to_markdown()
    assert "| Absent capabilities | 2, listed below |" in md
    assert "- `copy-hook`: no hooks | here\n- `weights-key`: no store\n" in md
    assert "| Absent capabilities | none |" in report("core").to_markdown()


# --- optional parts -----------------------------------------------------------------------------


def test_without_names_the_absent_parts_with_the_hooks_as_one() -> None:
    assert without([]) == []
    assert without([Capability.SWEEP, Capability.FILE_BACKED]) == ["file-backed data", "sweep"]
    assert without(HOOKS) == ["hooks"]
    assert without([Capability.LOW_MEMORY, Capability.EXTERNALIZE]) == [
        "externalize_pte_data",
        "low-memory weights",
    ]


def test_a_clause_of_an_absent_part_is_not_applicable_whatever_its_tests_did() -> None:
    spec = load_spec()
    sweep = spec.parts["sweep"]
    results = [result(P, sweep[0]), result(F, sweep[1]), result(P, "NDS-ADD-1")]
    absent = (("sweep", "no sweep here"),)
    rep = build_report(spec, Header("x", "1", "x", "strict", "1.0", absent), results)
    got = {c.clause.id: (c.status, c.reason) for c in rep.clauses}
    assert got[sweep[0]] == (Status.NOT_APPLICABLE, "needs sweep: no sweep here")
    assert got[sweep[1]] == (Status.NOT_APPLICABLE, "needs sweep: no sweep here")
    assert got["NDS-ADD-1"][0] is Status.PASSED
    assert rep.verdicts["core"].covers == "core (without: sweep)"
    assert rep.verdict_lines()[0].startswith("core (without: sweep):   ")
    assert "- **strict** (without: sweep): " in rep.to_markdown()
    assert rep.to_json()["verdicts"]["strict"]["without"] == ["sweep"]


# --- a failure counts against the clause its check names (conformance.harness.checks) -----------


def test_a_failure_naming_its_clause_fails_only_that_clause() -> None:
    machine = Result("t::machine", ("A-1", "A-2", "A-3"), F, "boom (A-2)", ("A-2",))
    assert (machine.fails("A-2"), machine.fails("A-1"), machine.stopped("A-1")) == (
        True,
        False,
        True,
    )
    assert clause_status([machine], "A-2") == (Status.FAILED, "t::machine: boom (A-2)")
    assert clause_status([machine, result(P, "A-1")], "A-1") == (Status.PASSED, "")
    assert clause_status([machine], "A-1") == (
        Status.UNTESTED,
        "t::machine stopped at a failure of A-2",
    )
    plain = Result("t::plain", ("A-1", "A-2"), F, "boom")
    assert clause_status([plain], "A-1")[0] is Status.FAILED  # names no clause: fails them all


def test_failed_clauses_of_exceptions() -> None:
    from conformance.harness.checks import ClauseFailure, blame, check, failed_clauses

    with pytest.raises(ClauseFailure) as caught:
        check(1 == 2, "one is two", "A-1")
    assert (str(caught.value), failed_clauses(caught.value)) == ("one is two (A-1)", ("A-1",))
    with pytest.raises(ClauseFailure) as blamed, blame("B-1", "B-2"):
        raise KeyError("k")
    assert failed_clauses(blamed.value) == ("B-1", "B-2")
    assert isinstance(blamed.value.__cause__, KeyError)
    assert failed_clauses(AssertionError("plain")) is None
    group = _Group(ClauseFailure("a", ("A-1",)), ClauseFailure("b", ("B-1",)))
    assert failed_clauses(group) == ("A-1", "B-1")
    assert failed_clauses(_Group(ClauseFailure("a", ("A-1",)), AssertionError("b"))) is None


def _reliant(outcome: Outcome = F, *clauses: str, relies: tuple[str, ...] = ("A-1",)) -> Result:
    return Result("t::reliant", clauses or ("A-2",), outcome, "boom", relies_on=relies)


def test_a_failure_relying_on_a_failed_clause_counts_against_it() -> None:
    own = Result("t::own", ("A-1",), F, "A-1 broke")
    got = with_reliance([own, _reliant()])
    assert got[0] == own
    assert (got[1].failed_clauses, got[1].blocked_by) == (("A-1",), ("A-1",))
    rep = report("core", own, _reliant(), Result("t::other", ("A-2",), P))
    assert statuses(rep)["A-1"] == "failed"
    assert next(c.reason for c in rep.clauses if c.clause.id == "A-1") == "t::own: A-1 broke"
    # its own clause is untested, not passed, whatever its other tests did
    assert clause_status(with_reliance([own, _reliant()])[1:], "A-2") == (
        Status.UNTESTED,
        "t::reliant relies on A-1, which failed; it failed: boom",
    )
    assert statuses(rep)["A-2"] == "untested"


def test_a_reliance_on_clauses_that_held_blames_the_tests_own() -> None:
    passing = Result("t::own", ("A-1",), P)
    assert with_reliance([passing, _reliant()])[1].failed_clauses == ()
    assert statuses(report("core", passing, _reliant()))["A-2"] == "failed"
    # a declared deviation of the relied-on clause hides no new failure behind it
    deviation = Result("t::own", ("A-1",), D, "A-1: known")
    assert statuses(report("core", deviation, _reliant()))["A-2"] == "failed"


def test_reliance_is_followed_one_step_only() -> None:
    # A-1 failed only through its own reliance on B-1: it blocks nothing
    root = Result("t::root", ("B-1",), F)
    middle = Result("t::middle", ("A-1",), F, relies_on=("B-1",))
    got = with_reliance([root, middle, _reliant()])
    assert got[1].blocked_by == ("B-1",)
    assert (got[2].failed_clauses, got[2].blocked_by) == ((), ())


def test_a_named_failure_or_a_pass_is_never_reattributed() -> None:
    own = Result("t::own", ("A-1",), F)
    named = Result("t::named", ("A-2",), F, failed_clauses=("A-2",), relies_on=("A-1",))
    passed = _reliant(P)
    assert with_reliance([own, named, passed]) == [own, named, passed]
    # a test that relies on one of its own clauses is judged on it
    itself = _reliant(F, "A-1", relies=("A-1",))
    assert with_reliance([own, itself])[1] == itself


class _Group(Exception):
    """An exception group as Hypothesis raises for distinct failures (3.10 has no builtin)."""

    def __init__(self, *exceptions: BaseException) -> None:
        super().__init__("several failures")
        self.exceptions = exceptions


ATTRIBUTED_SUITE = """
import pytest
from conformance.harness.checks import check


@pytest.mark.clause("CORD-INIT-1", "CORD-INIT-2", "CORD-INIT-3")
def test_many_clauses():
    check(True, "fine", "CORD-INIT-1")
    check(False, "the second is broken", "CORD-INIT-2")


@pytest.mark.clause("CORD-INIT-3")
def test_its_own():
    pass


@pytest.mark.clause("CORD-LEN-1")
@pytest.mark.relies_on("CORD-INIT-2")
def test_relies_on_a_broken_clause():
    assert False, "found through CORD-INIT-2"
"""


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "xdist"])
def test_plugin_counts_a_failure_against_the_clause_its_check_names(
    pytester: pytest.Pytester, xdist: bool
) -> None:
    pytester.makepyfile(test_attributed=ATTRIBUTED_SUITE)
    args = [*QUIET, "--cordspec-report", "r.json", *(["-n", "2"] if xdist else [])]
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    data = reported(pytester)
    got = {c["id"]: c["status"] for c in data["clauses"]}
    assert (got["CORD-INIT-1"], got["CORD-INIT-2"], got["CORD-INIT-3"]) == (
        "untested",
        "failed",
        "passed",
    )
    init2 = next(c for c in data["clauses"] if c["id"] == "CORD-INIT-2")
    assert init2["tests"][0]["failed_clauses"] == ["CORD-INIT-2"]
    length = next(c for c in data["clauses"] if c["id"] == "CORD-LEN-1")
    assert length["status"] == "untested", length
    assert length["tests"][0]["relies_on"] == length["tests"][0]["blocked_by"] == ["CORD-INIT-2"]
    jsonschema.Draft202012Validator(SCHEMA).validate(data)


# Options registered as pytest-profiling does (``--profile``, dest "profile"), and the other bare
# names a plugin might take: cordspec's plugin loads in every pytest run, so it must take none.
CLASHING_PLUGIN = """
def pytest_addoption(parser):
    group = parser.getgroup("profiling")
    group.addoption("--profile", action="store_true", help="as pytest-profiling")
    group.addoption("--profile-svg", action="store_true", help="as pytest-profiling")
    for name in ("impl", "report", "deviations", "shrink", "clause"):
        parser.addoption(f"--{name}", dest=name, help="another plugin's")
"""


def test_the_plugin_takes_no_option_another_plugin_may_use(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CLASHING_PLUGIN)
    pytester.makepyfile(test_plain="def test_plain(): pass")
    result = pytester.runpytest(*QUIET, "--profile", "--impl", "x", "--cordspec-profile", "core")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.assert_outcomes(passed=1)


def test_every_option_of_the_plugin_is_prefixed(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*QUIET, "--help")
    lines = result.stdout.lines
    start = lines.index("cordspec conformance suite:")
    end = next(i for i in range(start + 1, len(lines)) if lines[i] and lines[i][0] != " ")
    flags = [
        line.split()[0].partition("=")[0] for line in lines[start + 1 : end] if line[:4] == "  --"
    ]
    assert "--cordspec-impl" in flags and "--cordspec-shrink" in flags, flags
    assert all(flag.startswith("--cordspec-") for flag in flags), flags


# --- every implementation gets a verdict: hangs, crashes, Ctrl-C --------------------------------

HANGING_SUITE = """
import os
import threading

import pytest

LOCK = threading.Lock()


@pytest.mark.clause("CORD-WRITE-1")
def test_deadlocks():
    with LOCK:
        LOCK.acquire()  # a lock its own thread holds: never returns
"""
AFTER = """

@pytest.mark.clause("CORD-WRITE-2")
def test_after():
    pass
"""
"""A test that passes, after a suite's first one: the run must reach it and judge its clause."""


def run_then_one_more(
    pytester: pytest.Pytester, suite: str, *args: str, timeout: float
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """``suite`` and :data:`AFTER` run by pytest in a child process (as a test that hangs or
    kills its process must be), with a JSON report; the result and the report's clauses."""
    pytester.makepyfile(test_fake=suite + AFTER)
    result = pytester.runpytest_subprocess(
        *QUIET, *args, "--cordspec-report", "r.json", timeout=timeout
    )
    return result, {c["id"]: c for c in reported(pytester)["clauses"]}


def test_a_hung_test_fails_its_clause_and_the_run_reaches_a_verdict(
    pytester: pytest.Pytester,
) -> None:
    result, clauses = run_then_one_more(
        pytester, HANGING_SUITE, "--cordspec-timeout", "1", timeout=120
    )
    result.assert_outcomes(passed=1, failed=1)
    assert clauses["CORD-WRITE-1"]["status"] == "failed"
    assert clauses["CORD-WRITE-1"]["reason"] == "test_fake.py::test_deadlocks: hung after 1 s"
    assert clauses["CORD-WRITE-2"]["status"] == "passed"
    result.stdout.fnmatch_lines(["core:*DOES NOT CONFORM (1 failed, *"])


CRASHING_SUITE = """
import os

import pytest


@pytest.mark.clause("CORD-WRITE-1")
def test_crashes():
    os._exit(0)  # as an implementation crashing in an extension would, with a status of success
"""


def test_a_crash_fails_its_clause_and_the_run_reaches_a_verdict(
    pytester: pytest.Pytester,
) -> None:
    result, clauses = run_then_one_more(
        pytester, CRASHING_SUITE, "-p", "xdist", "-n", "1", timeout=300
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert clauses["CORD-WRITE-1"]["status"] == "failed"
    assert clauses["CORD-WRITE-1"]["reason"].startswith(
        "test_fake.py::test_crashes: crashed: the process running it died"
    ), clauses["CORD-WRITE-1"]
    assert clauses["CORD-WRITE-2"]["status"] == "passed"


SWALLOWING_SUITE = """
import contextlib
import os
import signal

import pytest


@pytest.mark.clause("CORD-WRITE-1")
def test_swallows_the_users_interrupt():
    with contextlib.suppress(KeyboardInterrupt):  # as a test expecting an injected interrupt
        os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, really sent


@pytest.mark.clause("CORD-WRITE-2")
def test_never_reached():
    pass
"""


def test_an_interrupt_a_test_swallowed_still_stops_the_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fake=SWALLOWING_SUITE)
    result = pytester.runpytest_subprocess(
        *QUIET, "--cordspec-report", "r.json", "--cordspec-report", "r.md", timeout=120
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    data = reported(pytester)
    assert data["interrupted"] is True and data["verdicts"] == {} and not data["exit_ok"]
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert {c["id"]: c["status"] for c in data["clauses"]}["CORD-WRITE-2"] == "untested"
    md = (pytester.path / "r.md").read_text("utf-8").splitlines()
    assert md[2] == "**INTERRUPTED: the run was stopped before it ended; no verdict**"
    assert "CONFORM" not in "\n".join(md)
    result.stdout.fnmatch_lines(["INTERRUPTED: the run was stopped before it ended; no verdict"])
    assert "CONFORMS" not in result.stdout.str()


def test_an_injected_interrupt_does_not_stop_the_run(pytester: pytest.Pytester) -> None:
    """The suite's own interrupts (the handler called with no frame) are no user's Ctrl-C."""
    pytester.makepyfile(
        test_fake="""
        import pytest
        from conformance.harness.interrupts import deliver_sigint, interrupting

        @pytest.mark.clause("CORD-WRITE-1")
        def test_injects():
            with pytest.raises(KeyboardInterrupt), interrupting():
                deliver_sigint()

        @pytest.mark.clause("CORD-WRITE-2")
        def test_after():
            pass
        """
    )
    result = pytester.runpytest_subprocess(*QUIET, timeout=120)
    result.assert_outcomes(passed=2)


def test_one_clause_runs_alone_and_its_failure_says_why(pytester: pytest.Pytester) -> None:
    result = fake_run(
        pytester,
        "--cordspec-clause",
        "CORD-INIT-2",
        "--cordspec-profile",
        "core",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(failed=1, deselected=8)
    data = reported(pytester)
    assert data["partial"] == "--clause CORD-INIT-2"
    statuses = {c["id"]: c["status"] for c in data["clauses"]}
    assert statuses["CORD-INIT-2"] == "failed"
    assert {s for c, s in statuses.items() if c != "CORD-INIT-2"} == {"not run"}
    result.stdout.fnmatch_lines(
        [
            "*why each failed clause failed*",
            "CORD-INIT-2 failed: test_fake.py::test_fails",
            "    AssertionError: boom",
            "    rerun: cordspec run --impl reference --profile core --deviations dev.txt "
            "--clause CORD-INIT-2*",
        ]
    )
    bad = pytester.runpytest(*QUIET, "--cordspec-clause", "NO-SUCH-1")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_a_report_explains_itself() -> None:
    """A legend of every status, and each clause's first sentence and where to read the rest."""
    rep = report("strict", *MIXED)
    md = rep.to_markdown()
    for status in Status:
        assert f"- **{status.value}**: " in md, status
    clause = SPEC.clauses["A-1"]
    assert f"| {first_sentence(clause.text)} (line {clause.line}) |" in md
    data = rep.to_json()
    assert data["clauses"][0]["text"] == " ".join(clause.text.split())
    assert data["clauses"][0]["spec_line"] == clause.line
    jsonschema.Draft202012Validator(SCHEMA).validate(data)


RAISING_SUITE = """
import pytest

from conformance.harness.checks import check


def implementation_call(value):
    raise TypeError(f"unsupported operand {value!r}")


@pytest.mark.clause("CORD-INIT-1")
def test_raises_inside_a_call():
    result = implementation_call(3)
    assert result


@pytest.mark.clause("CORD-INIT-2")
def test_a_named_check_fails():
    check(False, "the pieces are reversed", "CORD-INIT-2")


@pytest.mark.clause("CORD-INIT-3")
def test_fails_without_a_message():
    raise AssertionError()
"""


def test_the_console_says_what_a_raising_test_expected(pytester: pytest.Pytester) -> None:
    """An exception the implementation raised says which call of the test it came out of (what
    the test expected to return); a named check's failure shows its message without the
    exception's module path; a failure without a message says so in the account of why."""
    pytester.makepyfile(test_fake=RAISING_SUITE)
    result = pytester.runpytest(*QUIET, "--cordspec-report", "r.json", "-k", "test_")
    data = json.loads((pytester.path / "r.json").read_text("utf-8"))
    reasons = {c["id"]: c["reason"] for c in data["clauses"] if c["status"] == "failed"}
    assert reasons["CORD-INIT-1"] == (
        "test_fake.py::test_raises_inside_a_call: TypeError: unsupported operand 3 (the test "
        "expected `result = implementation_call(3)` at test_fake.py:12 to return)"
    )
    assert reasons["CORD-INIT-2"] == (
        "test_fake.py::test_a_named_check_fails: the pieces are reversed (CORD-INIT-2)"
    )
    out = result.stdout.str()
    why = out[out.index("why each failed clause failed") :]
    why = why.partition("short test summary info")[0]  # pytest's own summary follows
    assert "ClauseFailure" not in why, why
    assert "CORD-INIT-3 failed: test_fake.py::test_fails_without_a_message" in why, why


def test_an_account_of_a_failure_without_a_message_says_so() -> None:
    rep = report("core", result(F, "A-1", nodeid="t.py::test_silent"), *ALL_CORE_PASS[1:])
    why = rep.why_lines(None, 80)
    assert why[0] == "A-1 failed: t.py::test_silent"
    assert why[1].startswith("    (its failure has no message"), why


def test_a_partial_run_of_no_core_clause_says_so() -> None:
    """A partial run that chose strict clauses only gives no core verdict of 0/0: it says that no
    core clause was run."""
    rep = build_report(
        SPEC, replace(header("strict"), partial="-k strict"), [result(P, "B-1")], None
    )
    lines = rep.verdict_lines()
    assert lines[0] == "core:   NOT RUN: no core clause was run", lines
    assert lines[1].startswith("strict: CONFORMS (1/1), PARTIAL RUN:"), lines
    assert rep.exit_ok
