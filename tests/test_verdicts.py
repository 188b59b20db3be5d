"""The verdict rules (``conformance.run.verdicts``) on plain records: no pytest run, no report."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from conformance.run import verdicts
from conformance.run.spec import parse_spec
from conformance.run.verdicts import Outcome, Result, Status, clause_results, verdict

SPEC = parse_spec(
    textwrap.dedent(
        """\
        # test spec

        Version: 9.9

        ## 2. Things

        #### A-1 · MUST · core

        It MUST work.

        *Rationale:* r.

        #### A-2 · MUST · core

        It MUST hold.

        *Rationale:* r.

        #### A-3 · MUST · core

        It MUST last.

        *Rationale:* r.
        """
    )
)
P, F, D = Outcome.PASSED, Outcome.FAILED, Outcome.DEVIATION


def statuses(results: list[Result], declared: dict[str, str] | None = None) -> dict[str, Status]:
    found = clause_results(SPEC, "core", verdicts.with_reliance(results), declared=declared)
    return {c.clause.id: c.status for c in found}


def test_the_rules_need_no_pytest() -> None:
    tree = ast.parse(Path(verdicts.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert "pytest" not in imported


def test_a_declared_clause_whose_test_stops_at_another_clauses_check_is_fixed() -> None:
    """A-2 declared; its only test failed at A-1's (declared) check: no check of A-2 failed."""
    results = [
        Result("t::a1", ("A-1",), D, "A-1: broken", failed_clauses=("A-1",)),
        Result("t::a2", ("A-2",), D, "A-1: broken", failed_clauses=("A-1",), relies_on=("A-1",)),
        Result("t::a3", ("A-3",), P),
    ]
    declared = {"A-1": "broken", "A-2": "said, not seen"}
    got = statuses(results, declared)
    assert got == {"A-1": Status.DEVIATION, "A-2": Status.DEVIATION_FIXED, "A-3": Status.PASSED}
    assert statuses(results, {"A-1": "broken"})["A-2"] is Status.MASKED
    found = clause_results(SPEC, "core", results, declared=declared)
    assert verdict(found, "core").failed == 1  # a fixed deviation fails the run


def test_a_test_lines_clauses_are_those_its_reason_names() -> None:
    """A test line declares A-1 (its reason starts "A-1: "): the test's failure, named by no
    check, was recorded against A-1 alone; A-2 passes in its own test."""
    results = [
        Result("t::both", ("A-1", "A-2"), D, "A-1: x", failed_clauses=("A-1",), declares=("A-1",)),
        Result("t::a2", ("A-2",), P),
        Result("t::a3", ("A-3",), P),
    ]
    got = statuses(results)
    assert got == {"A-1": Status.DEVIATION, "A-2": Status.PASSED, "A-3": Status.PASSED}


def test_a_test_line_that_names_a_clause_whose_check_held_is_fixed() -> None:
    results = [
        Result("t::x", ("A-2",), D, "A-2: said", failed_clauses=("A-1",), declares=("A-2",)),
        Result("t::a1", ("A-1",), D, "A-1: broken", failed_clauses=("A-1",)),
        Result("t::a2", ("A-2",), P),
        Result("t::a3", ("A-3",), P),
    ]
    found = {c.clause.id: c for c in clause_results(SPEC, "core", results, declared={"A-1": "b"})}
    assert found["A-2"].status is Status.DEVIATION_FIXED
    assert "t::x's line declares it" not in found["A-2"].reason  # named by function, not node
    assert "x's line declares it (A-2: said)" in found["A-2"].reason
    assert "the check that failed is A-1's" in found["A-2"].reason


def test_a_failure_counts_against_the_clause_its_check_named() -> None:
    results = [
        Result("t::machine", ("A-1", "A-2"), F, "boom (A-2)", failed_clauses=("A-2",)),
        Result("t::a1", ("A-1",), P),
        Result("t::a3", ("A-3",), P),
    ]
    got = statuses(results)
    assert got == {"A-1": Status.PASSED, "A-2": Status.FAILED, "A-3": Status.PASSED}


def test_the_harness_skips_unobserved_tests_with_the_prefix_the_rules_read() -> None:
    from conformance.harness import observe
    from conformance.run import verdicts

    assert observe.UNOBSERVED_PREFIX == verdicts.UNOBSERVED_PREFIX
