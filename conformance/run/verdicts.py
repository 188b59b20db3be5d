"""The verdict rules as data: a test's outcome, the clauses a failure counts against, what a test
relies on and what the deviations file declares, folded into a status per clause and a verdict
per profile. Plain records in, plain records out: no pytest object is needed (the plugin's
:class:`~conformance.run.report.Collector` makes the records from pytest's reports).

Rules, for the clauses of the chosen profile:

- a test is *passed*, *failed* (a strict xpass and errors in setup or teardown included),
  *expected deviation* (xfailed with the plugin's "known deviation" reason), *not applicable*
  (skipped with a reason starting "not applicable: ") or *skipped* (any other skip or xfail);
- a clause that needs an optional part the implementation lacks (SPEC.md section 1.1) is *not
  applicable*, whatever its tests did;
- a failed test whose failing check named its clauses (``conformance.harness.checks``) fails
  those clauses only (they count as its clauses even if its markers do not name them); for its
  other clauses it did not finish, so it neither passes nor fails them;
- a failed test whose failure named no clause, and which relies on clauses (its ``relies_on``
  marker: behaviour it uses to observe its own clauses) one of which failed in a test of its own,
  is *blocked*: the failure counts against those clauses, and the test's own clauses are
  *untested* (it cannot say whether they hold), however their other tests did;
- otherwise a clause is *failed* if any of its tests failed it, else *expected deviation* if any
  xfailed, else *untested* if one could not see the implementation (a skip reason starting
  "unobserved: ", :mod:`conformance.harness.observe`), else *passed* if any passed, else *not
  applicable* if all its tests were, else *untested* if one was skipped or stopped at a failure,
  else *masked* if one stopped at a declared deviation of another clause (it relies on it, or
  names it too), else *untested*;
- a clause the deviations file declares (a clause line, or the clauses a test line's reason
  starts with) none of whose checks failed, its tests passed or stopped at another clause's
  check, is *deviation fixed*: a declaration is believed only where a check of its clause fails;
- only MUST and MUST NOT clauses decide a verdict and are counted in it; SHOULD and MAY clauses
  show their status and nothing else;
- a run narrowed with ``-k``, ``-m`` or ``--deselect`` is *partial*: a clause none of whose tests
  ran is *not run*, and a verdict counts only the clauses that ran.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..api import Capability, without
from .spec import Clause, Profile, Spec, profiles_within

__all__ = [
    "ACCEPTABLE",
    "RECOMMENDED",
    "REQUIRED",
    "ClauseResult",
    "Kind",
    "Outcome",
    "Result",
    "Status",
    "Verdict",
    "clause_results",
    "clause_status",
    "shown_failure",
    "verdict",
    "with_reliance",
]

REQUIRED = ("MUST", "MUST NOT")
"""The keywords whose clauses decide a verdict."""
RECOMMENDED = ("SHOULD", "SHOULD NOT")
"""The keywords whose failed clauses a verdict names, without changing it."""


class Outcome(str, enum.Enum):
    """What happened to one test."""

    PASSED = "passed"
    FAILED = "failed"
    DEVIATION = "expected deviation"
    NOT_APPLICABLE = "not applicable"
    SKIPPED = "skipped"


class Status(str, enum.Enum):
    """What the tests of one clause amount to."""

    PASSED = "passed"
    FAILED = "failed"
    DEVIATION = "expected deviation"
    NOT_APPLICABLE = "not applicable"
    UNTESTED = "untested"
    NOT_RUN = "not run"
    """A partial run left out every test of the clause."""
    NOT_TESTABLE = "not testable here"
    """No test of this suite can check the clause; the spec says why (its *Untested:* note)."""
    DEVIATION_FIXED = "deviation fixed"
    """Declared as a deviation (a clause line), yet none of its checks failed: it fails the run
    until the line is removed, as a strict xfail that passes does."""
    MASKED = "masked"
    """Not checked, because each test of it that ran stopped at a declared deviation of another
    clause (one it relies on, or another of its own): no part of a verdict's failures, for the
    deviation explains it; it reads passed again once that deviation is fixed."""


ACCEPTABLE = frozenset({Outcome.PASSED, Outcome.DEVIATION, Outcome.NOT_APPLICABLE})
"""Test outcomes that leave the exit status at 0."""


@dataclass(frozen=True)
class Result:
    """One test's outcome; ``reason`` without the "known deviation: "/"not applicable: " prefix."""

    nodeid: str
    clauses: tuple[str, ...]
    outcome: Outcome
    reason: str = ""
    failed_clauses: tuple[str, ...] = ()
    """For a failure whose check named its clauses: those; empty: it fails all of ``clauses``."""
    relies_on: tuple[str, ...] = ()
    """Clauses whose behaviour the test uses to observe its own (its ``relies_on`` markers)."""
    blocked_by: tuple[str, ...] = ()
    """For a blocked failure (see :func:`with_reliance`): the relied-on clauses that failed in
    tests of their own; ``failed_clauses`` then names them too."""
    message: str = field(default="", compare=False)
    """A failure's whole message (what was expected, what happened, the scenario), for the
    console's account of why a clause failed; ``reason`` is its first line."""
    declares: tuple[str, ...] = ()
    """For a test a test line declares: the clauses the line's reason says it deviates in."""

    def fails(self, clause: str) -> bool:
        """Whether this result fails ``clause``."""
        if self.outcome is not Outcome.FAILED:
            return False
        return clause in self.failed_clauses if self.failed_clauses else clause in self.clauses

    def deviates(self, clause: str) -> bool:
        """Whether this result is an expected deviation of ``clause``: a declared failure that
        counts against it (the clauses its check named; without those, every clause of it)."""
        if self.outcome is not Outcome.DEVIATION:
            return False
        return clause in self.failed_clauses if self.failed_clauses else clause in self.clauses

    def stopped(self, clause: str) -> bool:
        """Whether this test failed on another clause's check before it finished ``clause``'s."""
        return self.outcome is Outcome.FAILED and not self.fails(clause)


def with_reliance(results: Iterable[Result]) -> list[Result]:
    """``results`` with each blocked failure attributed to the clauses it relies on.

    A failed test whose failure named no clause and which relies on clauses is *blocked* by those
    of them that failed in their own right: in a test whose failing check named them, or in a
    failed test that relies on nothing. A reliant test's failure never counts as its clauses' own,
    blocked or not, so a clause is never blamed through a chain of reliances, and each relied-on
    clause needs a test of its own that relies on nothing. A relied-on clause that is a declared
    deviation (xfailed, not failed) blocks nothing, so a new failure is never hidden behind a
    known one.

    An expected deviation taken for a declared clause the test relies on (its ``blocked_by``)
    stands only if that clause deviates in a test of its own; else it is the failure it was."""
    results = _checked_blocked_deviations(list(results))

    def reliant(result: Result) -> bool:
        return (
            result.outcome is Outcome.FAILED
            and not result.failed_clauses
            and bool(result.relies_on)
        )

    own: set[str] = set()
    for result in results:
        if result.outcome is Outcome.FAILED and not reliant(result):
            own.update(result.failed_clauses or result.clauses)
    out = []
    for result in results:
        if reliant(result):
            blocked = tuple(c for c in result.relies_on if c in own and c not in result.clauses)
            if blocked:
                result = replace(result, failed_clauses=blocked, blocked_by=blocked)
        out.append(result)
    return out


def _checked_blocked_deviations(results: list[Result]) -> list[Result]:
    """``results`` with each deviation blocked by declared clauses none of which deviates in a
    test of its own turned back into the failure it was: a known deviation hides no new one."""
    own: set[str] = set()
    for result in results:
        if result.outcome is Outcome.DEVIATION and not result.blocked_by:
            own.update(result.failed_clauses or result.clauses)
    out = []
    for result in results:
        if (
            result.outcome is Outcome.DEVIATION
            and result.blocked_by
            and not own & set(result.blocked_by)
        ):
            result = replace(
                result,
                outcome=Outcome.FAILED,
                failed_clauses=(),
                blocked_by=(),
                reason=f"{result.reason} (but {', '.join(result.blocked_by)} failed in no "
                "test of its own)",
            )
        out.append(result)
    return out


@dataclass(frozen=True)
class ClauseResult:
    """A clause, its status, why (for failures, deviations, not applicable) and its tests."""

    clause: Clause
    status: Status
    reason: str
    tests: tuple[Result, ...]


def shown_failure(tests: Sequence[Result], clause: str | None = None) -> Result | None:
    """The failure that says why clause ``clause`` (None: any clause) failed: a test of its own
    first, before one blocked by it; None when no test failed it."""
    failing = [
        t for t in tests if t.outcome is Outcome.FAILED and (clause is None or t.fails(clause))
    ]
    return min(failing, key=lambda t: bool(t.blocked_by)) if failing else None


def clause_status(tests: Sequence[Result], clause: str | None = None) -> tuple[Status, str]:
    """The status of clause ``clause`` (None: every test's failure fails it) whose tests had
    these results, and the reason to show with it."""

    def first(outcome: Outcome) -> Result | None:
        return next((t for t in tests if t.outcome is outcome), None)

    failed = shown_failure(tests, clause)
    if failed is not None:
        return (
            Status.FAILED,
            f"{failed.nodeid}: {failed.reason}" if failed.reason else failed.nodeid,
        )
    blocked = next(
        (t for t in tests if t.outcome is Outcome.FAILED and t.blocked_by and clause in t.clauses),
        None,
    )
    if blocked is not None:
        why = f"{blocked.nodeid} relies on {', '.join(blocked.blocked_by)}, which failed"
        return Status.UNTESTED, f"{why}; it failed: {blocked.reason}" if blocked.reason else why
    deviation = next(
        (
            t
            for t in tests
            if (t.outcome is Outcome.DEVIATION if clause is None else t.deviates(clause))
        ),
        None,
    )
    if deviation is not None:
        return Status.DEVIATION, deviation.reason
    unseen = _unobserved(tests)
    if unseen is not None:  # no credit for what a test could not see, whatever others did
        return Status.UNTESTED, f"{unseen.nodeid}: {unseen.reason}"
    if first(Outcome.PASSED):
        return Status.PASSED, ""
    if tests and all(t.outcome is Outcome.NOT_APPLICABLE for t in tests):
        return Status.NOT_APPLICABLE, tests[0].reason
    skipped = first(Outcome.SKIPPED)
    if skipped is not None:
        return Status.UNTESTED, f"skipped: {skipped.reason}"
    stopped = first(Outcome.FAILED)
    if stopped is not None:
        return Status.UNTESTED, (
            f"{stopped.nodeid} stopped at a failure of {', '.join(stopped.failed_clauses)}"
        )
    other = first(Outcome.DEVIATION)
    if other is not None:
        relied = bool(other.blocked_by) and set(other.blocked_by) <= set(other.relies_on)
        how = "relies on declared" if relied else "stopped at an expected deviation of"
        return Status.MASKED, f"{other.nodeid} {how} {', '.join(other.failed_clauses)}"
    return Status.UNTESTED, ""


UNOBSERVED_PREFIX = "unobserved: "
"""How the skip reason of a test that could not see the implementation starts
(:mod:`conformance.harness.observe` skips with it)."""


def _unobserved(tests: Sequence[Result]) -> Result | None:
    """The first test that could not see the implementation do what it checks (its skip reason
    starts :data:`UNOBSERVED_PREFIX`), if any."""
    return next(
        (
            t
            for t in tests
            if t.outcome is Outcome.SKIPPED and t.reason.startswith(UNOBSERVED_PREFIX)
        ),
        None,
    )


def clause_results(
    spec: Spec,
    profile: Profile,
    results: Iterable[Result],
    absent: Sequence[tuple[str, str]] = (),
    partial: bool = False,
    declared: Mapping[str, str] | None = None,
    chosen: Collection[str] = (),
) -> list[ClauseResult]:
    """The status of every clause of ``profile``, in document order. A clause that needs an
    optional part among ``absent`` ((capability, reason) pairs) is not applicable whatever its
    tests did: no clause is credited for a part the implementation lacks (SPEC.md section 1.1).
    In a ``partial`` run, a clause with no test is *not run* instead of *untested*. A clause of
    ``declared`` (clause id: reason, the deviation file's clause lines) that would pass is a
    *deviation fixed*: none of its checks failed."""
    declared = declared or {}
    why = dict(absent)
    needs = spec.needing(why)
    clauses = spec.in_profile(profile)
    by_clause: dict[str, list[Result]] = {c.id: [] for c in clauses}
    for result in results:
        for clause_id in dict.fromkeys((*result.clauses, *result.failed_clauses)):
            if clause_id in by_clause:
                by_clause[clause_id].append(result)
    by_line: dict[str, Result] = {}  # clause: the first deviation a test line declares of it
    for result in results:
        if result.outcome is Outcome.DEVIATION:
            for clause_id in result.declares:
                by_line.setdefault(clause_id, result)
    out = []
    for clause in clauses:
        tests = tuple(by_clause[clause.id])
        if clause.id in needs:
            part = needs[clause.id]
            status, reason = Status.NOT_APPLICABLE, f"needs {part}: {why[part]}"
        elif chosen and clause.id not in chosen:
            status, reason = Status.NOT_RUN, "not chosen by --clause"
        elif not tests and clause.untested:
            status, reason = Status.NOT_TESTABLE, clause.untested
        elif partial and not tests:
            status, reason = Status.NOT_RUN, "no test of it was selected"
        else:
            status, reason = clause_status(tests, clause.id)
            status, reason = _declaration_checked(clause.id, status, reason, declared, by_line)
        out.append(ClauseResult(clause, status, reason, tests))
    return out


def _declaration_checked(
    clause: str,
    status: Status,
    reason: str,
    declared: Mapping[str, str],
    by_line: Mapping[str, Result],
) -> tuple[Status, str]:
    """A clause's status and reason, held against what the deviations file declares of it: a
    declared clause none of whose checks failed (its tests passed, or stopped at another
    clause's check) is a *deviation fixed*, whether a clause line or a test line's reason
    declared it; a clause line's deviation gives that line's reason."""
    if status is Status.DEVIATION and clause in declared:
        return status, f"{clause}: {declared[clause]}"
    if status not in (Status.PASSED, Status.MASKED):
        return status, reason
    how = "" if status is Status.PASSED else f" (its tests stopped at another's check: {reason})"
    if clause in declared:
        return Status.DEVIATION_FIXED, (
            f"declared as a deviation ({declared[clause]}), yet no check of it failed{how}: "
            "remove its line from the deviations file"
        )
    line = by_line.get(clause)
    if line is not None:
        test = line.nodeid.rpartition("::")[2].partition("[")[0]
        counts = ", ".join(line.failed_clauses) or "no clause"
        return Status.DEVIATION_FIXED, (
            f"{test}'s line declares it ({line.reason}), yet the check that failed is "
            f"{counts}'s and no check of it failed{how}: correct the line's clauses"
        )
    return status, reason


class Kind(str, enum.Enum):
    """The three verdicts."""

    CONFORMS = "conforms"
    DEVIATES = "conforms-with-deviations"
    DOES_NOT_CONFORM = "does-not-conform"


@dataclass(frozen=True)
class Verdict:
    """A profile's verdict; every count is of its MUST / MUST NOT clauses."""

    profile: Profile
    passed: int
    applicable: int
    failed: int
    deviations: int
    untested: int
    not_applicable: int
    not_run: int = 0
    """Clauses a partial run left out: no part of the verdict."""
    without: tuple[str, ...] = ()
    """The optional parts the implementation lacks (SPEC.md section 1.1): what the verdict does
    not cover."""
    should_failed: tuple[str, ...] = ()
    """The SHOULD and SHOULD NOT clauses of the profile that failed: no part of the verdict,
    which says them all the same."""
    masked: int = 0
    """Clauses no test could check past a declared deviation (:attr:`Status.MASKED`): neither
    passed nor failed; the verdict says how many."""

    @property
    def covers(self) -> str:
        """What the verdict is for: ``core``, or ``core (without: file-backed data, hooks)``."""
        return (
            f"{self.profile} (without: {', '.join(self.without)})" if self.without else self.profile
        )

    @property
    def kind(self) -> Kind:
        if self.failed or self.untested:
            return Kind.DOES_NOT_CONFORM
        return Kind.DEVIATES if self.deviations or self.masked else Kind.CONFORMS

    @property
    def text(self) -> str:
        text = self._text()
        if self.not_run and self.applicable:
            text = f"{text}, PARTIAL RUN: {self.not_run} not run"
        if self.should_failed:
            text += f"; SHOULD FAILED: {', '.join(self.should_failed)}"
        return text

    def _text(self) -> str:
        kind = self.kind
        if kind is Kind.CONFORMS and not self.applicable and self.not_run:
            return f"NOT RUN: no {self.profile} clause was run"
        if kind is Kind.CONFORMS:
            return f"CONFORMS ({self.passed}/{self.applicable})"
        if kind is Kind.DEVIATES:
            masked = f", {self.masked} masked by them" if self.masked else ""
            return (
                f"CONFORMS WITH {self.deviations} DECLARED DEVIATIONS "
                f"({self.passed}/{self.applicable} passed{masked})"
            )
        return f"DOES NOT CONFORM ({self.failed} failed, {self.untested} untested)"

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.text,
            "covers": self.covers,
            "without": list(self.without),
            "result": self.kind.value,
            "passed": self.passed,
            "applicable": self.applicable,
            "failed": self.failed,
            "deviations": self.deviations,
            "untested": self.untested,
            "not_applicable": self.not_applicable,
            "not_run": self.not_run,
            "masked": self.masked,
            "should_failed": list(self.should_failed),
        }


def _without(absent: Iterable[str]) -> tuple[str, ...]:
    """The names of the absent parts; a value that names no capability is shown as it is."""
    values = list(absent)
    known = {c.value: c for c in Capability}
    named = without(known[v] for v in values if v in known)
    return (*named, *(v for v in values if v not in known))


def verdict(
    results: Iterable[ClauseResult], profile: Profile, absent: Iterable[str] = ()
) -> Verdict:
    """The verdict for ``profile`` from clause results (clauses of other profiles are ignored),
    saying it covers the implementation without the ``absent`` capabilities (their values)."""
    wanted = profiles_within(profile)
    counts = dict.fromkeys(Status, 0)
    should_failed: list[str] = []
    failing = (Status.FAILED, Status.DEVIATION_FIXED)
    for result in results:
        clause = result.clause
        if clause.profile in wanted and clause.keyword in REQUIRED:
            counts[result.status] += 1
        elif (
            clause.profile in wanted and clause.keyword in RECOMMENDED and result.status in failing
        ):
            should_failed.append(clause.id)
    return Verdict(
        profile=profile,
        passed=counts[Status.PASSED],
        applicable=sum(counts.values())
        - counts[Status.NOT_APPLICABLE]
        - counts[Status.NOT_RUN]
        - counts[Status.NOT_TESTABLE],
        failed=counts[Status.FAILED] + counts[Status.DEVIATION_FIXED],
        deviations=counts[Status.DEVIATION],
        untested=counts[Status.UNTESTED],
        not_applicable=counts[Status.NOT_APPLICABLE],
        not_run=counts[Status.NOT_RUN],
        masked=counts[Status.MASKED],
        without=_without(absent),
        should_failed=tuple(should_failed),
    )
