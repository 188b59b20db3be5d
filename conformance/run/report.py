"""The clause report: test outcomes, folded into a status per clause and a verdict per profile.

The plugin feeds every test report it sees on the controller (``pytest_runtest_logreport``) to a
:class:`Collector`; that works under pytest-xdist too, because the clause ids travel in the reports'
``user_properties`` and xfail reasons in ``wasxfail``. :func:`build_report` then turns the
results into a :class:`Report`: terminal rows, Markdown, or JSON (``docs/report-schema.json``).

The rules that make statuses and verdicts of the results are :mod:`conformance.run.verdicts`'s
(re-exported here).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ..api import Capability, Implementation
from .spec import Clause, Profile, Spec, profiles_within
from .verdicts import (
    ACCEPTABLE,
    REQUIRED,
    ClauseResult,
    Kind,
    Outcome,
    Result,
    Status,
    Verdict,
    clause_results,
    clause_status,
    shown_failure,
    verdict,
    with_reliance,
)

__all__ = [
    "BLOCKED_PROPERTY",
    "CLAUSES_PROPERTY",
    "DECLARES_PROPERTY",
    "DEVIATION_PREFIX",
    "FAILED_CLAUSES_PROPERTY",
    "FAILURE_PROPERTY",
    "FORMATS",
    "NOT_APPLICABLE_PREFIX",
    "OVERRIDE_PREFIX",
    "RELIES_ON_PROPERTY",
    "REQUIRED",
    "ClauseResult",
    "Collector",
    "Header",
    "Kind",
    "Outcome",
    "Report",
    "Result",
    "Status",
    "Verdict",
    "build_report",
    "check_report_path",
    "clause_results",
    "clause_status",
    "first_sentence",
    "make_header",
    "report_format",
    "report_schema",
    "verdict",
    "with_reliance",
]

CLAUSES_PROPERTY = "cordspec_clauses"
"""The ``user_properties`` name under which the plugin stores a test's clause ids."""
FAILED_CLAUSES_PROPERTY = "cordspec_failed_clauses"
"""The ``user_properties`` name of the clause ids a failed test's failing check named."""
FAILURE_PROPERTY = "cordspec_failure"
"""The ``user_properties`` name of what a failure was, said better than its exception: "hung after
N s" (the time limit), "crashed" (the process running it died)."""
HUNG_PREFIX = "hung after "
"""How the failure property of a test that ran past its time limit starts."""
CRASHED_PHASE = "???"
"""The phase of the report pytest-xdist makes for the test a dead worker was running."""
BLOCKED_PROPERTY = "cordspec_blocked_by"
"""The ``user_properties`` name of the declared clauses a test relies on and which its expected
deviation counts against (its failure named no clause)."""
DECLARES_PROPERTY = "cordspec_declares"
"""The ``user_properties`` name of the clause ids a test line's reason starts with: the clauses the
deviations file says the test deviates in."""
RELIES_ON_PROPERTY = "cordspec_relies_on"
"""The ``user_properties`` name of the clause ids a test relies on (its ``relies_on`` markers)."""
DEVIATION_PREFIX = "known deviation: "
NOT_APPLICABLE_PREFIX = "not applicable: "
OVERRIDE_PREFIX = "the impl fixture of "
"""How the header's ``impl`` starts when a test tree's own ``impl`` fixture chose the
implementation (then no ``--impl`` did)."""
INTERRUPTED_LINE = "INTERRUPTED: the run was stopped before it ended; no verdict"
"""What a report of an interrupted run says at its top, and in place of its verdicts."""
FORMATS = {".md": "markdown", ".json": "json"}
"""Report formats by file suffix."""
REPORT_FORMAT = "cordspec-report/1"
REPORT_SCHEMA_ID = "urn:cordspec:report-schema:1"
"""The ``$id`` of the JSON report's schema, and the report's ``$schema``."""


def report_schema() -> dict[str, Any]:
    """The JSON report's schema: ``docs/report-schema.json`` of the source checkout, else the copy
    installed with the package (``conformance/data/report-schema.json``)."""
    checkout = Path(__file__).resolve().parents[2] / "docs" / "report-schema.json"
    if checkout.is_file():
        text = checkout.read_text(encoding="utf-8")
    else:
        packaged = resources.files("conformance") / "data" / "report-schema.json"
        text = packaged.read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def report_format(path: str | Path) -> str:
    """``markdown`` or ``json`` by the suffix of ``path``; ValueError naming it otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"{path}: unknown report format {suffix or '(no suffix)'!r}; "
            "name a .md (Markdown) or .json (JSON) file"
        )
    return FORMATS[suffix]


def check_report_path(path: str | Path) -> None:
    """Raise ValueError naming ``path`` unless a report can be written there: a known format,
    in a directory that exists and can be written to, and not a directory or an unwritable file.
    Checked before a run, so that a bad path does not wait for the whole run to be found."""
    report_format(path)
    target = Path(path)
    parent = target.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise ValueError(f"{path}: its directory {str(parent)!r} {what}")
    if target.is_dir():
        raise ValueError(f"{path}: is a directory")
    writable = os.access(target, os.W_OK) if target.exists() else os.access(parent, os.W_OK)
    if not writable:
        raise ValueError(f"{path}: not writable")


# --- collecting ---------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


_QUALIFIED = re.compile(r"^(?:[A-Za-z_]\w*\.)+(\w+(?:Error|Exception|Failure|Interrupt|Exit)): ")
"""An exception's name with its module, as pytest shows one from outside the builtins."""


def _plain(message: str) -> str:
    """A failure's message as the report shows it: a named check's without its exception's name
    (the message ends with the clauses), another exception's without its module."""
    text = message.lstrip()
    found = _QUALIFIED.match(text)
    if found is None:
        return text
    if found[1] == "ClauseFailure":
        return text[found.end() :]
    return f"{found[1]}: {text[found.end() :]}"


_CHECK_FAILURES = ("AssertionError", "Failed", "Failure", "Timeout")
"""How the names of a failed check's exceptions end (``assert``, ``pytest.fail``, a named
check, ``pytest.raises`` that saw nothing): anything else was raised, not judged."""


def _raised_in(report: pytest.TestReport, message: str) -> str:
    """For an exception the implementation raised where the test expected none (not a check
    that failed): which call of the test it came out of, as " (the test expected `call` at
    FILE:LINE to return)", else ""."""
    name = message.partition(":")[0].strip().rpartition(".")[2]
    if not name.isidentifier() or name.endswith(_CHECK_FAILURES):
        return ""
    test_file = Path(str(report.location[0])).name
    traceback = getattr(report.longrepr, "reprtraceback", None)
    entries = list(getattr(traceback, "reprentries", None) or [])
    for entry in reversed(entries[:-1]):  # the last one raised: the test's own raise is no call
        where = getattr(entry, "reprfileloc", None)
        if where is None or Path(str(where.path)).name != test_file:
            continue
        call = next((ln[1:].strip() for ln in getattr(entry, "lines", []) if ln[:1] == ">"), "")
        if call:
            return f" (the test expected `{call}` at {test_file}:{where.lineno} to return)"
    return ""


def _failure_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if isinstance(message, str):
        raised = _raised_in(report, message)
        message = _one_line(_plain(message)) + raised if raised else message
    text = _one_line(_plain(message) if isinstance(message, str) else str(longrepr or ""))
    if text.startswith("[XPASS(strict)]"):
        text = "passed, but is marked as a " + text[len("[XPASS(strict)] ") :]
    return text if report.when == "call" else f"error in {report.when}: {text}"


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        text = str(longrepr[2])
    else:
        text = str(longrepr or "")
    text = _one_line(text)
    return text[len("Skipped: ") :] if text.startswith("Skipped: ") else text


def _property(report: pytest.TestReport, name: str) -> str | None:
    for prop in report.user_properties:
        # a (name, value) tuple, or a list once it went through xdist's serialization
        if isinstance(prop, (tuple, list)) and len(prop) == 2 and prop[0] == name:
            return str(prop[1])
    return None


def _clauses(report: pytest.TestReport, name: str = CLAUSES_PROPERTY) -> tuple[str, ...] | None:
    value = _property(report, name)
    return None if value is None else tuple(value.split())


def _outcome(report: pytest.TestReport) -> tuple[Outcome, str] | None:
    """The outcome one phase's report implies, or None when it implies nothing (a passed phase)."""
    if report.failed:
        said = _property(report, FAILURE_PROPERTY)
        return Outcome.FAILED, said if said is not None else _failure_reason(report)
    if report.skipped:
        wasxfail = getattr(report, "wasxfail", None)
        if isinstance(wasxfail, str):
            if wasxfail.startswith(DEVIATION_PREFIX):
                return Outcome.DEVIATION, wasxfail[len(DEVIATION_PREFIX) :]
            return Outcome.SKIPPED, f"xfail: {wasxfail}" if wasxfail else "xfail"
        reason = _skip_reason(report)
        if reason.startswith(NOT_APPLICABLE_PREFIX):
            return Outcome.NOT_APPLICABLE, reason[len(NOT_APPLICABLE_PREFIX) :]
        return Outcome.SKIPPED, reason
    if report.when == "call":
        return Outcome.PASSED, ""
    return None


def _failure_message(report: pytest.TestReport) -> str:
    """The whole message of a failure: its exception's text (pytest's crash message)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if not isinstance(message, str):
        return str(report.longrepr or "").strip()
    return (_plain(message).strip() + "\n" + _raised_in(report, message).strip(" ()")).strip()


@dataclass
class _Partial:
    clauses: tuple[str, ...]
    outcome: Outcome | None = None
    reason: str = ""
    message: str = ""
    failed_clauses: tuple[str, ...] = ()
    relies_on: tuple[str, ...] = ()
    blocked_by: tuple[str, ...] = ()
    declares: tuple[str, ...] = ()


class Collector:
    """Folds the setup, call and teardown reports of each suite test into one :class:`Result`.

    A suite test is one whose reports carry the plugin's clause ids; other reports are ignored.
    """

    def __init__(self) -> None:
        self._tests: dict[str, _Partial] = {}

    def add(self, report: pytest.TestReport) -> None:
        """Take one phase's report (from this process or from an xdist worker); the report
        pytest-xdist makes for a test whose worker died (phase "???", no properties) fails the
        test as crashed."""
        clauses = _clauses(report)
        if clauses is None and report.nodeid in self._tests and report.when == CRASHED_PHASE:
            partial = self._tests[report.nodeid]
            if partial.reason.startswith(HUNG_PREFIX):
                return  # the watchdog ended the worker, and said so first
            partial.outcome, partial.failed_clauses = Outcome.FAILED, ()
            partial.reason = (
                f"crashed: the process running it died ({_one_line(str(report.longrepr))})"
            )
            partial.message = partial.reason
            return
        if clauses is None:
            return
        partial = self._tests.setdefault(
            report.nodeid,
            _Partial(
                clauses,
                relies_on=_clauses(report, RELIES_ON_PROPERTY) or (),
                declares=_clauses(report, DECLARES_PROPERTY) or (),
            ),
        )
        implied = _outcome(report)
        if implied is None or partial.outcome is Outcome.FAILED:
            return
        if implied[0] is Outcome.FAILED or partial.outcome is None:
            partial.outcome, partial.reason = implied
            if implied[0] is Outcome.FAILED:
                partial.message = _failure_message(report)
            if implied[0] in (Outcome.FAILED, Outcome.DEVIATION):
                partial.failed_clauses = _clauses(report, FAILED_CLAUSES_PROPERTY) or ()
                partial.blocked_by = _clauses(report, BLOCKED_PROPERTY) or ()
            if implied[0] is Outcome.DEVIATION and not partial.failed_clauses:
                partial.failed_clauses = partial.declares  # a test line's, by its reason

    @property
    def active(self) -> bool:
        """Whether any suite test reported."""
        return bool(self._tests)

    def results(self) -> list[Result]:
        """One result per suite test, by node id: under xdist tests report in whatever order
        they finish, and a report (and the reason shown for a clause) must not depend on it."""
        return [
            Result(
                nodeid,
                p.clauses,
                p.outcome or Outcome.SKIPPED,
                p.reason,
                p.failed_clauses,
                p.relies_on,
                p.blocked_by,
                p.message,
                p.declares,
            )
            for nodeid, p in sorted(self._tests.items())
        ]


# --- statuses and verdicts: conformance.run.verdicts -------------------------------------------

# --- the report ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """What was tested, against what, when."""

    implementation: str
    version: str
    impl: str
    """The ``--impl`` value it was loaded by, or :data:`OVERRIDE_PREFIX` and the test file whose
    ``impl`` fixture gave it."""
    profile: Profile
    spec_version: str
    absent: tuple[tuple[str, str], ...] = ()
    """(capability, reason) for each optional capability the implementation lacks."""
    date: str = ""
    cordspec_version: str = ""
    error: str = ""
    """Why the implementation could not be described, if it could not be loaded here."""
    partial: str = ""
    """How the run was narrowed (``-k 'merge'``), or "" for a whole run."""
    interrupted: bool = False
    """The run was stopped (Ctrl-C) before it ended: a report of it gives no verdict."""
    chosen: tuple[str, ...] = ()
    """The clauses ``--clause`` chose: the run judges those alone (the others are *not run*)."""

    @property
    def chosen_by(self) -> str:
        """``--impl VALUE``, or which test file's ``impl`` fixture chose the implementation."""
        return self.impl if self.impl.startswith(OVERRIDE_PREFIX) else f"--impl {self.impl}"


def _cordspec_version() -> str:
    try:
        return importlib.metadata.version("cordspec")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "unknown"


def make_header(
    impl: str,
    profile: Profile,
    spec: Spec,
    implementation: Implementation | None,
    error: str = "",
    date: datetime | None = None,
    partial: str = "",
) -> Header:
    """The header for ``implementation`` (None when it could not be loaded, with ``error``)."""
    when = (date or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    if implementation is None:
        return Header(
            implementation=impl,
            version="unknown",
            impl=impl,
            profile=profile,
            spec_version=spec.version,
            date=when,
            cordspec_version=_cordspec_version(),
            error=error,
            partial=partial,
        )
    present = implementation.capabilities
    return Header(
        implementation=implementation.name,
        version=implementation.version,
        impl=impl,
        profile=profile,
        spec_version=spec.version,
        absent=tuple(
            (c.value, implementation.why_absent(c)) for c in Capability if c not in present
        ),
        date=when,
        cordspec_version=_cordspec_version(),
        partial=partial,
    )


def fit(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with "..." where it is cut."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    return text[: max(width - 3, 0)] + "..." if width >= 3 else text[:width]


REASON_INDENT = " " * 6
"""How a clause row's reason goes on, on the lines it is wrapped onto."""


def wrap(text: str, width: int, indent: str) -> list[str]:
    """``text`` wrapped to ``width`` columns, whole: the lines after the first start with
    ``indent``; a word longer than a line (a path) is kept whole on a line of its own."""
    lines = textwrap.wrap(
        text,
        width,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    )
    return lines or [text.rstrip()]


def clause_columns(clause: Clause, id_width: int) -> str:
    """The start of a clause's row in a terminal listing: id, keyword and profile, aligned."""
    return f"{clause.id:<{id_width}}  {clause.keyword:<8}  {clause.profile:<6}  "


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(\"])")


def first_sentence(text: str) -> str:
    """The first sentence of a clause's text, on one line."""
    return _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]


STATUS_MEANINGS = {
    Status.PASSED: "its tests ran and passed (the clause's checks held)",
    Status.FAILED: "a check of it failed; the reason names the test and its message",
    Status.DEVIATION: "a declared deviation: a check of it failed, as the deviations file says",
    Status.NOT_APPLICABLE: "it needs an optional part (SPEC.md section 1.1) the implementation "
    "lacks",
    Status.UNTESTED: "no test of it ran to its end (skipped, or stopped at another clause's "
    "failure): it counts against the verdict",
    Status.NOT_RUN: "a partial run (--clause, -k, -m) left out every test of it",
    Status.DEVIATION_FIXED: "declared as a deviation, yet no check of it failed: remove the "
    "line; it fails the run",
    Status.NOT_TESTABLE: "no test of this suite can check it; the reason is the spec's",
    Status.MASKED: "not checked: each test of it stopped at a declared deviation of a clause it "
    "relies on (or of another of its clauses); the deviation explains it, so it does not fail "
    "the run",
}
"""What each status means: the legend of a Markdown report."""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


@dataclass(frozen=True)
class Report:
    """Clause statuses of the chosen profile, verdicts, and every suite test's result."""

    header: Header
    clauses: list[ClauseResult]
    verdicts: dict[str, Verdict]
    results: list[Result] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        """The verdict for the chosen profile."""
        return self.verdicts[self.header.profile]

    @property
    def not_acceptable(self) -> list[Result]:
        """Tests whose outcome makes the run fail: failed, or skipped other than not applicable."""
        return [r for r in self.results if r.outcome not in ACCEPTABLE]

    @property
    def exit_ok(self) -> bool:
        """Every test passed, xfailed or was not applicable, and the verdict is not negative (and
        the run was not interrupted)."""
        if self.header.interrupted:
            return False
        return not self.not_acceptable and self.verdict.kind is not Kind.DOES_NOT_CONFORM

    @property
    def shown_verdicts(self) -> dict[str, Verdict]:
        """The verdicts a report gives: none for an interrupted run."""
        return {} if self.header.interrupted else self.verdicts

    # terminal

    def verdict_lines(self) -> list[str]:
        if self.header.interrupted:
            return [INTERRUPTED_LINE]
        width = max(len(v.covers) for v in self.verdicts.values()) + 1
        return [f"{v.covers + ':':<{width}} {v.text}" for v in self.verdicts.values()]

    def header_lines(self, width: int = 100) -> list[str]:
        h = self.header
        lines = [INTERRUPTED_LINE] if h.interrupted else []
        lines += [
            f"implementation: {h.implementation} {h.version} ({h.chosen_by})",
            f"profile: {h.profile}; spec version {h.spec_version}; {h.date}",
        ]
        if h.partial:
            lines.append(f"partial run ({h.partial}): judged on the clauses whose tests ran")
        if h.error:
            lines.append(f"error: {h.error}")
        lines.extend(f"absent: {cap}: {why}" for cap, why in h.absent)
        return [
            wrapped
            for line in lines
            for wrapped in textwrap.wrap(
                line, width, subsequent_indent="    ", break_on_hyphens=False
            )
        ]

    def clause_lines(self, width: int = 100) -> list[str]:
        """One row per clause: id, keyword, profile, status, and the reason where there is one."""
        id_width = max((len(c.clause.id) for c in self.clauses), default=2)
        status_width = max(len(s.value) for s in Status)
        rows = []
        for c in self.clauses:
            row = clause_columns(c.clause, id_width) + f"{c.status.value:<{status_width}}"
            reason = c.reason
            failed = next((t for t in c.tests if t.fails(c.clause.id)), None)
            if c.status is Status.FAILED and failed is not None:  # the test's name, not its path
                reason = f"{failed.nodeid.rpartition('::')[2]}: {failed.reason}"
            if reason:  # wrapped, never cut: its end is often what says what failed
                rows += wrap(f"{row}  {' '.join(reason.split())}", width, REASON_INDENT)
            else:
                rows.append(row.rstrip())
        return rows

    def why_lines(
        self, rerun: Callable[[str], str] | None = None, width: int = 100, most: int = 12
    ) -> list[str]:
        """For each failed clause, once: the test whose check failed, its message (at most
        ``most`` lines, each cut to ``width``), and ``rerun(clause)``, the command that runs that
        clause again. A message already shown for an earlier clause is referred to, not
        repeated."""
        lines: list[str] = []
        shown: dict[str, str] = {}
        for c in self.clauses:
            if c.status not in (Status.FAILED, Status.DEVIATION_FIXED):
                continue
            test = shown_failure(c.tests, c.clause.id)
            if test is None:  # a declared deviation that was fixed: the reason says so
                lines += wrap(f"{c.clause.id} {c.status.value}: {c.reason}", width, "    ")
            elif test.nodeid in shown:
                lines += wrap(
                    f"{c.clause.id} failed: {test.nodeid}, as {shown[test.nodeid]} above",
                    width,
                    "    ",
                )
            else:
                shown[test.nodeid] = c.clause.id
                lines += wrap(f"{c.clause.id} failed: {test.nodeid}", width, "    ")
                message = [ln for ln in (test.message or test.reason).splitlines() if ln.strip()]
                if not message:
                    message = ["(its failure has no message: the full output has its traceback)"]
                for line in message[:most]:
                    lines += wrap(f"    {line.strip()}", width, "      ")
                if len(message) > most:
                    lines.append(f"    ... ({len(message) - most} more lines in the full output)")
            if rerun is not None:
                lines.append(f"    rerun: {rerun(c.clause.id)}")
        return lines

    def exit_lines(self) -> list[str]:
        """Why the run fails although the verdict does not, if it does."""
        bad = self.not_acceptable
        if not bad or self.header.interrupted or self.verdict.kind is Kind.DOES_NOT_CONFORM:
            return []
        failed = sum(r.outcome is Outcome.FAILED for r in bad)
        skipped = len(bad) - failed
        parts = [f"{failed} test(s) failed"] if failed else []
        if skipped:
            parts.append(f"{skipped} test(s) skipped without a '{NOT_APPLICABLE_PREFIX}' reason")
        return [f"the run fails: {', '.join(parts)}"]

    # files

    def to_json(self) -> dict[str, Any]:
        h = self.header
        return {
            "$schema": REPORT_SCHEMA_ID,
            "format": REPORT_FORMAT,
            "implementation": {"name": h.implementation, "version": h.version, "impl": h.impl},
            "profile": h.profile,
            "spec_version": h.spec_version,
            "cordspec_version": h.cordspec_version,
            "date": h.date,
            "absent_capabilities": [{"capability": c, "reason": r} for c, r in h.absent],
            "error": h.error,
            "partial": h.partial,
            "interrupted": h.interrupted,
            "verdicts": {p: v.to_json() for p, v in self.shown_verdicts.items()},
            "exit_ok": self.exit_ok,
            "clauses": [
                {
                    "id": c.clause.id,
                    "keyword": c.clause.keyword,
                    "profile": c.clause.profile,
                    "section": c.clause.section,
                    "text": " ".join(c.clause.text.split()),
                    "spec_line": c.clause.line,
                    "status": c.status.value,
                    "reason": c.reason,
                    "tests": [
                        {
                            "nodeid": t.nodeid,
                            "outcome": t.outcome.value,
                            "reason": t.reason,
                            "failed_clauses": list(t.failed_clauses),
                            "relies_on": list(t.relies_on),
                            "blocked_by": list(t.blocked_by),
                        }
                        for t in c.tests
                    ],
                }
                for c in self.clauses
            ],
            "tests": {
                o.value.replace(" ", "_"): sum(r.outcome is o for r in self.results)
                for o in Outcome
            },
        }

    def to_markdown(self) -> str:
        h = self.header
        absent = f"{len(h.absent)}, listed below" if h.absent else "none"
        lines = ["# cordspec conformance report", ""]
        if h.interrupted:
            lines += [f"**{INTERRUPTED_LINE}**", ""]
        lines += [
            "| | |",
            "| --- | --- |",
            f"| Implementation | {_cell(h.implementation)} {_cell(h.version)} |",
            f"| `--impl` | `{_cell(h.impl)}` |",
            f"| Profile | {h.profile} |",
            f"| Spec version | {_cell(h.spec_version)} |",
            f"| Absent capabilities | {absent} |",
            f"| Date | {h.date} |",
            f"| cordspec | {_cell(h.cordspec_version)} |",
        ]
        if h.error:
            lines.append(f"| Error | {_cell(h.error)} |")
        if h.partial:
            lines.append(
                f"| Partial run | {_cell(h.partial)}: judged on the clauses whose tests ran |"
            )
        if h.absent:
            lines += ["", "Absent capabilities (clauses that need them are not applicable):", ""]
            lines += [f"- `{c}`: {' '.join(r.split())}" for c, r in h.absent]
        lines += ["", "## Verdict", ""]
        lines += [
            f"- **{p}**{v.covers[len(p) :]}: {v.text}" for p, v in self.shown_verdicts.items()
        ]
        if h.interrupted:
            lines.append(f"- {INTERRUPTED_LINE}")
        lines += [
            "",
            "Counts are of MUST and MUST NOT clauses; SHOULD and MAY clauses show their status "
            "but do not change a verdict.",
        ]
        lines += [f"\n{line}." for line in self.exit_lines()]
        lines += ["", "## Statuses", ""]
        lines += [f"- **{s.value}**: {STATUS_MEANINGS[s]}" for s in Status]
        lines += ["", "## Clauses", ""]
        lines.append(
            "Each row gives the clause's first sentence; `spec/SPEC.md` (line given) has the rest, "
            "and `cordspec clauses ID` prints it with the clause's tests."
        )
        section = None
        for c in self.clauses:
            if c.clause.section != section:
                section = c.clause.section
                lines += [
                    "",
                    f"### {_cell(section) or '(no section)'}",
                    "",
                    "| Clause | Keyword | Profile | Status | Tests | Reason | Requirement |",
                    "| --- | --- | --- | --- | --- | --- | --- |",
                ]
            requirement = f"{first_sentence(c.clause.text)} (line {c.clause.line})"
            lines.append(
                f"| {c.clause.id} | {c.clause.keyword} | {c.clause.profile} | {c.status.value} "
                f"| {len(c.tests)} | {_cell(c.reason)} | {_cell(requirement)} |"
            )
        unusual = [r for r in self.results if r.outcome is not Outcome.PASSED]
        if unusual:
            lines += [
                "",
                "## Tests not passed",
                "",
                "| Test | Outcome | Reason |",
                "| --- | --- | --- |",
            ]
            lines += [
                f"| `{_cell(r.nodeid)}` | {r.outcome.value} | {_cell(r.reason)} |" for r in unusual
            ]
        return "\n".join(lines) + "\n"

    def write(self, path: str | Path) -> None:
        """Write the report to ``path``: Markdown for ``.md``, JSON for ``.json``."""
        kind = report_format(path)
        target = Path(path)
        if kind == "json":
            text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        else:
            text = self.to_markdown()
        target.write_text(text, encoding="utf-8")


def build_report(
    spec: Spec,
    header: Header,
    results: Sequence[Result],
    declared: Mapping[str, str] | None = None,
) -> Report:
    """The report for ``header.profile``: its clauses, and verdicts for core (and strict);
    ``declared`` maps the clauses declared as deviations to their reasons."""
    results = with_reliance(results)
    clauses = clause_results(
        spec,
        header.profile,
        results,
        header.absent,
        partial=bool(header.partial),
        declared=declared,
        chosen=header.chosen,
    )
    chosen = profiles_within(header.profile)
    return Report(
        header=header,
        clauses=clauses,
        verdicts={p: verdict(clauses, p, (c for c, _ in header.absent)) for p in chosen},
        results=list(results),
    )
