"""The pytest plugin: chooses the implementation, maps tests to clauses, applies deviations, and
reports a status per clause and a verdict per profile (terminal summary, ``--report`` files)."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import re
import shlex
import signal
import threading
from collections.abc import Generator, Iterator
from pathlib import Path

import pluggy
import pytest

from .. import suite
from ..adapters import load_implementation, selected_target
from ..api import Capability, Implementation, ImplementationError
from ..harness import interrupts
from ..harness.checks import failed_clauses
from ..harness.gc_freeze import FrozenHeap
from ..harness.helpers import Blobs, left_behind, placeholders
from .deviations import (
    Deviation,
    builtin_deviations_path,
    declared_clauses,
    read_deviations,
    reason_clauses,
    suite_test_names,
    unmatched,
)
from .options import add_run_options, time_limit
from .report import (
    BLOCKED_PROPERTY,
    CLAUSES_PROPERTY,
    DECLARES_PROPERTY,
    DEVIATION_PREFIX,
    FAILED_CLAUSES_PROPERTY,
    FAILURE_PROPERTY,
    NOT_APPLICABLE_PREFIX,
    OVERRIDE_PREFIX,
    RELIES_ON_PROPERTY,
    Collector,
    Kind,
    Report,
    build_report,
    check_report_path,
    make_header,
)
from .spec import Spec, load_spec

__all__ = ["clause_ids"]

_SMALL_BYTES = 4096
_SUITE = Path(suite.__file__).parent
_SPEC_KEY = pytest.StashKey[Spec]()
_DEVIATIONS_KEY = pytest.StashKey[dict[str, Deviation]]()
_REPORTER_NAME = "cordspec-reporter"
_LOADED_KEY = pytest.StashKey[Implementation]()
_HUNG = re.compile(r"^Timeout \(>([0-9.]+)s\) from pytest-timeout")
"""pytest-timeout's message for a test that ran past its limit."""
_UNMATCHED_OUTPUT = "cordspec_unmatched"
"""The ``workeroutput`` key under which an xdist worker hands on the deviations that match nothing
of what it collected."""
_IMPLEMENTATION_PROPERTY = "cordspec_implementation"
"""The ``user_properties`` name under which a test records the implementation its ``impl`` ran."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cordspec", "cordspec conformance suite")
    add_run_options(group.addoption, pytest=True)


def pytest_configure(config: pytest.Config) -> None:
    _skip_pytests_diff_of_large_bytes()
    config.addinivalue_line(
        "markers", "clause(*ids): the spec clauses (spec/SPEC.md) this test checks"
    )
    config.addinivalue_line(
        "markers",
        "relies_on(*ids): clauses whose behaviour this test uses to observe its own; a failure "
        "that names no clause counts against those of them that failed in tests of their own",
    )
    config.addinivalue_line(
        "markers", "requires(capability): not applicable unless the implementation has it"
    )
    for path in config.getoption("cordspec_report"):
        try:
            check_report_path(path)
        except ValueError as exc:
            raise pytest.UsageError(f"--cordspec-report {exc}") from None
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist) reports
        config.pluginmanager.register(_Reporter(config), _REPORTER_NAME)
    config.pluginmanager.register(_InterruptGuard(), "cordspec-interrupt-guard")
    config.pluginmanager.register(FrozenHeap(config), "cordspec-frozen-heap")


class _InterruptGuard:
    """While suite tests run in this process: SIGINT's handler is
    :func:`~conformance.harness.interrupts.sigint_handler`, and a run during whose test a user's
    SIGINT came stops after that test, even if the test (one expecting an injected interrupt) or a
    callback the KeyboardInterrupt landed in swallowed it."""

    def __init__(self) -> None:
        self.previous: object = None
        self.seen = 0

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        suite_tests = any(i.get_closest_marker("clause") for i in session.items)
        if not suite_tests or threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored
            self.previous = signal.signal(signal.SIGINT, interrupts.sigint_handler)
        self.seen = interrupts.user_interrupts

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        yield
        if interrupts.user_interrupts > self.seen:
            self.seen = interrupts.user_interrupts
            raise KeyboardInterrupt(f"interrupted (SIGINT) while {item.nodeid} ran")

    def pytest_sessionfinish(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)  # type: ignore[arg-type]  # a handler it had
            self.previous = None


def clause_ids(item: pytest.Item, marker: str = "clause") -> list[str]:
    """The clause ids named by a test's ``clause`` (or other ``marker``) markers, in order."""
    ids: list[str] = []
    for mark in item.iter_markers(marker):
        ids.extend(str(arg) for arg in mark.args)
    return list(dict.fromkeys(ids))


def _spec(config: pytest.Config) -> Spec:
    if _SPEC_KEY not in config.stash:
        config.stash[_SPEC_KEY] = load_spec()
    return config.stash[_SPEC_KEY]


def _deviations(config: pytest.Config) -> dict[str, Deviation]:
    if _DEVIATIONS_KEY not in config.stash:
        option = config.getoption("cordspec_deviations")
        target = selected_target(config.getoption("cordspec_impl"))
        path = Path(option) if option else builtin_deviations_path(target)
        if option and not path.is_file():
            raise pytest.UsageError(f"--cordspec-deviations {option}: no such file")
        try:
            config.stash[_DEVIATIONS_KEY] = read_deviations(path, _version(target))
        except ValueError as exc:
            raise pytest.UsageError(f"bad deviations file:\n{exc}") from None
    return config.stash[_DEVIATIONS_KEY]


def _check_targets(config: pytest.Config, names: list[tuple[str, str]], cases: bool = True) -> None:
    """Stop the run with a usage error when a deviation matches nothing: no clause, no test
    function, or (with ``cases``) no case among the collected ones (``names``: each item's
    function and node name)."""
    deviations = _deviations(config)
    if not deviations:  # nothing to match: the suite's source need not be parsed
        return
    tests = suite_test_names(_SUITE) | {function for function, _ in names}
    collected = (n for _, n in names) if cases else ()
    problems = unmatched(deviations, _spec(config).clauses, tests, collected)
    if problems:
        raise pytest.UsageError("deviations that match nothing:\n" + "\n".join(problems))


def _version(target: str) -> str | None:
    """The version of the implementation under test, for release-tagged deviations."""
    try:
        return load_implementation(target).version
    except Exception:  # the impl fixture reports a load failure; no tagged line applies then
        return None


@pytest.hookimpl(tryfirst=True)  # before -k or -m deselect: deviations are checked against all
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Check clause ids and deviations' targets, leave out tests outside the profile, mark known
    deviations xfail."""
    spec = _spec(config)
    profile = config.getoption("cordspec_profile")
    deviations = _deviations(config)
    # Every process checks what it collected, before the profile, --clause, -k or -m leave any
    # of it out: a case those leave out is not run, never unmatched.
    names = [(getattr(i, "originalname", i.name), i.name) for i in items]
    try:
        _check_targets(config, names)
    except pytest.UsageError as exc:
        if not hasattr(config, "workeroutput"):
            raise
        # An xdist worker's usage error is an internal error of its controller: the worker runs
        # nothing and hands the problems on, and the controller stops with them.
        config.workeroutput[_UNMATCHED_OUTPUT] = str(exc)
        config.hook.pytest_deselected(items=list(items))
        items[:] = []
        return
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    timeout = time_limit(
        config.getoption("cordspec_timeout"), bool(config.getoption("cordspec_shrink", False))
    )
    limited = config.pluginmanager.hasplugin("timeout")  # pytest-timeout, a dependency
    for item in items:
        ids = clause_ids(item)
        if not ids:
            keep.append(item)
            continue
        relied = clause_ids(item, "relies_on")
        unknown = [i for i in (*ids, *relied) if i not in spec.clauses]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid} names unknown clause(s): {', '.join(unknown)}")
        if profile == "core" and all(spec.clauses[i].profile == "strict" for i in ids):
            dropped.append(item)
            continue
        item.user_properties.append((CLAUSES_PROPERTY, " ".join(ids)))
        if timeout and limited:
            item.add_marker(pytest.mark.timeout(timeout, method="signal"))
        if relied:
            item.user_properties.append((RELIES_ON_PROPERTY, " ".join(relied)))
        function = getattr(item, "originalname", item.name)
        owner = getattr(getattr(item, "cls", None), "__name__", None)  # Class::test, if any
        scoped = (f"{owner}::{function}", f"{owner}::{item.name}") if owner else ()
        # A clause's deviation is applied to each failure (pytest_runtest_makereport), so that its
        # passing tests still pass; a test's is a strict xfail. item.name has the parameters.
        targets = dict.fromkeys((function, item.name, *scoped))
        known = [deviations[t] for t in targets if t in deviations]
        if known:
            reason = "; ".join(f"{d.target}: {d.reason}" for d in known)
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"{DEVIATION_PREFIX}{reason}"))
            about = dict.fromkeys(c for d in known for c in reason_clauses(d.reason))
            if about:  # the clauses the lines say it deviates in: the report checks them
                item.user_properties.append((DECLARES_PROPERTY, " ".join(about)))
        keep.append(item)
    chosen = set(config.getoption("cordspec_clause") or ())
    unknown = sorted(chosen - set(spec.clauses))
    if unknown:
        raise pytest.UsageError(f"--cordspec-clause {unknown[0]}: no such clause")
    if chosen:  # --clause: only the tests naming one of those clauses
        dropped += [i for i in keep if not chosen & set(clause_ids(i))]
        keep = [i for i in keep if chosen & set(clause_ids(i))]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """Record with a failed (or xfailed) test's report the clauses its failing check named, if it
    named any; turn a failure that counts only against declared clauses into an expected
    deviation (:func:`_declared_failure`)."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or not (report.failed or hasattr(report, "wasxfail")):
        return
    named = failed_clauses(call.excinfo.value) or ()
    properties = [(FAILED_CLAUSES_PROPERTY, " ".join(named))] if named else []
    hung = _HUNG.search(str(call.excinfo.value))
    if hung and isinstance(call.excinfo.value, pytest.fail.Exception):
        properties.append((FAILURE_PROPERTY, f"hung after {float(hung[1]):g} s"))
    if report.failed and report.when == "call":
        declared = _declared_failure(item, named)
        if declared is not None:
            blamed, blocked, reason = declared
            report.outcome = "skipped"
            report.wasxfail = f"{DEVIATION_PREFIX}{reason}"  # as pytest's xfail sets it
            properties = [(FAILED_CLAUSES_PROPERTY, " ".join(blamed))] if blamed else []
            if blocked:
                properties.append((BLOCKED_PROPERTY, " ".join(blamed)))
    if properties:
        report.user_properties = [*report.user_properties, *properties]


def _declared_failure(
    item: pytest.Item, named: tuple[str, ...]
) -> tuple[tuple[str, ...], bool, str] | None:
    """Whether a suite test's failure is one its declared clauses expect: (the clauses it counts
    against, whether it is blocked by them, the reason), or None. A failure whose check named
    clauses is expected when every one of them is declared; one that named none, when every
    clause of the test is declared, or else when the test relies on declared clauses or names
    some among its own (then it counts against those, and its undeclared clauses are masked, not
    failed; the report checks that the declared ones failed in tests of their own)."""
    ids = clause_ids(item)
    if not ids:
        return None
    declared = declared_clauses(_deviations(item.config))
    if named:
        blamed, blocked = named, False
    elif all(i in declared for i in ids):
        blamed, blocked = (), False
    else:
        relied = dict.fromkeys((*clause_ids(item, "relies_on"), *ids))
        blamed = tuple(c for c in relied if c in declared)
        blocked = True
    if not all(c in declared for c in blamed or ids) or (blocked and not blamed):
        return None
    reason = "; ".join(f"{c}: {declared[c].reason}" for c in (blamed or ids))
    return blamed, blocked, reason


def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    """Explain unequal large byte strings by length, offset and digest."""
    if op != "==" or not isinstance(left, bytes) or not isinstance(right, bytes):
        return None
    if max(len(left), len(right)) <= _SMALL_BYTES:
        return None
    first = next(
        (i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b),
        min(len(left), len(right)),
    )
    return [
        f"{len(left)} bytes == {len(right)} bytes",
        f"first difference at offset {first}",
        f"sha256 {hashlib.sha256(left).hexdigest()} vs {hashlib.sha256(right).hexdigest()}",
    ]


def _skip_pytests_diff_of_large_bytes() -> None:
    """pytest diffs unequal bytes with difflib, in quadratic time: a broken implementation that
    writes a few hundred KiB wrongly would spin for hours. Its explainer (private API, so guarded)
    is wrapped to give the brief explanation above instead, for large bytes only."""
    try:
        from _pytest.assertion import util
    except ImportError:  # pragma: no cover - pytest moved it; the diff is then only slow
        return
    original = getattr(util, "assertrepr_compare", None)
    if original is None or getattr(original, "cordspec_guard", False):
        return

    def guarded(*args: object, **kwargs: object) -> object:
        # pytest 9.2 passes op/left/right by keyword; earlier ones (config, op, left, right)
        op, left, right = (kwargs[k] if k in kwargs else args[n] for n, k in _POSITIONS)
        brief = pytest_assertrepr_compare(str(op), left, right)
        return brief if brief is not None else original(*args, **kwargs)

    guarded.cordspec_guard = True  # type: ignore[attr-defined]  # marks the wrapper as installed
    util.assertrepr_compare = guarded  # type: ignore[assignment]  # its signature varies by version


_POSITIONS = ((1, "op"), (2, "left"), (3, "right"))


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config) -> Implementation:
    """The implementation under test (override this fixture to test your own)."""
    try:
        implementation = load_implementation(
            selected_target(pytestconfig.getoption("cordspec_impl"))
        )
    except ImplementationError as exc:
        pytest.exit(f"cordspec: {exc}", returncode=4)
    pytestconfig.stash[_LOADED_KEY] = implementation
    return implementation


@pytest.fixture(autouse=True)
def _cordspec_applicable(request: pytest.FixtureRequest) -> None:
    """Skip, as "not applicable", a test needing a capability the implementation lacks; record
    which implementation a suite test's ``impl`` gave (the plugin's, or an override's)."""
    marks = list(request.node.iter_markers("requires"))
    if not marks and "impl" not in request.fixturenames:
        return
    implementation: Implementation = request.getfixturevalue("impl")
    if request.node.get_closest_marker("clause") is not None:
        request.node.user_properties.append(
            (_IMPLEMENTATION_PROPERTY, _describe(implementation, request))
        )
    for mark in marks:
        for arg in mark.args:
            capability = Capability(arg)
            if capability not in implementation.capabilities:
                pytest.skip(f"{NOT_APPLICABLE_PREFIX}{implementation.why_absent(capability)}")


def _describe(implementation: Implementation, request: pytest.FixtureRequest) -> str:
    """What the report says of the implementation a test ran: name, version, absent
    capabilities, and how it was chosen (``--impl``, or the test file whose ``impl`` gave it)."""
    config = request.config
    if config.stash.get(_LOADED_KEY, None) is implementation:
        chosen = selected_target(config.getoption("cordspec_impl"))
    else:
        chosen = f"{OVERRIDE_PREFIX}{request.node.nodeid.partition('::')[0]}"
    present = implementation.capabilities
    absent = [(c.value, implementation.why_absent(c)) for c in Capability if c not in present]
    return json.dumps([implementation.name, implementation.version, chosen, absent])


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Before a pyfakefs test's fake filesystem goes: collect what the test dropped, so that an
    object it left open (a broken ``close()``) is finalized on the fake filesystem, not later on
    the real one, where its finalizer could delete a real file at the same path."""
    if "fs" in getattr(item, "fixturenames", ()):
        gc.collect()


@pytest.fixture
def blobs(impl: Implementation, tmp_path: Path) -> Iterator[Blobs]:
    """Files and FileBackedData for one test; every object made is closed at teardown. Not
    applicable to an implementation without file-backed data."""
    if Capability.FILE_BACKED not in impl.capabilities:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}{impl.why_absent(Capability.FILE_BACKED)}")
    made = Blobs(impl, tmp_path)
    try:
        yield made
    finally:
        made.close_all()


@pytest.fixture(autouse=True)
def _cordspec_no_placeholder_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a suite test that leaves a ``.executorch_*.data`` file in its directory."""
    if request.node.get_closest_marker("clause") is None:
        yield
        return
    directory: Path = request.getfixturevalue("tmp_path")
    yield  # autouse, so set up first and torn down last: after ``blobs`` has closed its objects
    left = placeholders(directory)
    if left:
        raise left_behind(left, clause_ids(request.node))


def _restriction(config: pytest.Config) -> str:
    """How the run was narrowed to some of the suite's tests (``-k``, ``-m``, ``--deselect``), or
    "" for a whole run: a narrowed run is judged on the clauses it ran, and says it is partial."""
    parts = []
    for option, flag in (("keyword", "-k"), ("markexpr", "-m")):
        value = config.getoption(option, default="")
        if value:
            parts.append(f"{flag} {value!r}")
    for nodeid in config.getoption("deselect", default=None) or []:
        parts.append(f"--deselect {nodeid}")
    parts.extend(f"--clause {c}" for c in config.getoption("cordspec_clause", default=None) or [])
    return " ".join(parts)


class _Reporter:
    """Collects suite tests' outcomes on the controller, reports clauses, sets the exit status."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.collector = Collector()
        self.report: Report | None = None
        self.written: list[str] = []
        self.errors: list[str] = []
        self.checked = False
        """Whether the deviations' targets were checked against an xdist worker's collection."""
        self.ran: set[str] = set()
        """What the tests' ``impl`` gave, as :func:`_describe` put it."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        """Under pytest-xdist, where the workers collect: check the deviations' targets against
        what a worker collected, here, where a usage error stops the run cleanly."""
        if self.checked or not ids:  # a worker that collected nothing says why itself
            return
        self.checked = True
        names = [nodeid.rpartition("::")[2] for nodeid in ids]
        try:  # the cases a worker kept are not all it collected: the worker checked those
            _check_targets(self.config, [(n.partition("[")[0], n) for n in names], cases=False)
        except pytest.UsageError as exc:
            pytest.exit(f"cordspec: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        """Under pytest-xdist: the deviations a worker found to match nothing it collected."""
        problem = getattr(node, "workeroutput", {}).get(_UNMATCHED_OUTPUT)
        if problem and f"cordspec: {problem}" not in self.errors:
            self.errors.append(f"cordspec: {problem}")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.collector.add(report)
        for prop in report.user_properties:  # a list once it went through xdist
            if isinstance(prop, (tuple, list)) and prop[0] == _IMPLEMENTATION_PROPERTY:
                self.ran.add(str(prop[1]))

    def _build(self) -> Report:
        config = self.config
        spec = _spec(config)
        profile = config.getoption("cordspec_profile")
        partial = _restriction(config)
        if self.ran:  # what the tests ran, which an override of ``impl`` may have changed
            described = [json.loads(d) for d in sorted(self.ran)]  # xdist: in any order
            name, version, chosen, absent = described[0]
            for other in described[1:]:  # several overrides in one tree: name every one
                name, version = f"{name}; {other[0]}", f"{version}; {other[1]}"
                chosen = f"{chosen}; {other[2]}"
            header = make_header(chosen, profile, spec, None, partial=partial)
            header = dataclasses.replace(
                header,
                implementation=name,
                version=version,
                absent=tuple(map(tuple, absent)),
                chosen=tuple(config.getoption("cordspec_clause") or ()),
            )
            return build_report(spec, header, self.collector.results(), self._declared())
        impl = selected_target(config.getoption("cordspec_impl"))
        try:
            implementation: Implementation | None = load_implementation(impl)
            error = ""
        except Exception as exc:  # described in the report; the tests already said what failed
            implementation, error = None, f"{type(exc).__name__}: {exc}"
        header = make_header(impl, profile, spec, implementation, error, partial=partial)
        header = dataclasses.replace(
            header, chosen=tuple(config.getoption("cordspec_clause") or ())
        )
        return build_report(spec, header, self.collector.results(), self._declared())

    def _rerun(self, clause: str) -> str:
        """The command that runs the tests of ``clause`` again, as this run ran them (same
        implementation, profile, deviations and Hypothesis seed)."""
        config = self.config
        report = self.report
        seed = config.getoption("hypothesis_seed", default=None)
        pytest_extra = [f"--hypothesis-seed={seed}"] if seed is not None else []
        if report is not None and report.header.impl.startswith(OVERRIDE_PREFIX):
            tree = report.header.impl[len(OVERRIDE_PREFIX) :].split("; ")[0]
            return shlex.join(["pytest", tree, "--cordspec-clause", clause, *pytest_extra])
        args = ["cordspec", "run", "--impl", selected_target(config.getoption("cordspec_impl"))]
        args += ["--profile", config.getoption("cordspec_profile")]
        deviations = config.getoption("cordspec_deviations")
        if deviations:
            args += ["--deviations", deviations]
        args += ["--clause", clause]
        return shlex.join([*args, "--", *pytest_extra] if pytest_extra else args)

    def _declared(self) -> dict[str, str]:
        """The clauses the deviations file declares, with their reasons."""
        return {c: d.reason for c, d in declared_clauses(_deviations(self.config)).items()}

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.errors:  # deviations that match nothing: no verdict
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        if not self.collector.active:
            return
        self.report = report = self._build()
        if session.exitstatus == pytest.ExitCode.INTERRUPTED:
            self.report = report = dataclasses.replace(
                report, header=dataclasses.replace(report.header, interrupted=True)
            )
        for path in self.config.getoption("cordspec_report"):
            try:
                report.write(path)
            except OSError as exc:
                self.errors.append(f"cordspec: --report {path}: cannot write it: {exc}")
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
            else:
                self.written.append(path)
        if session.exitstatus == pytest.ExitCode.OK and not report.exit_ok:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        tr = terminalreporter
        report = self.report
        if report is None:
            for error in self.errors:
                tr.write_line(error, red=True)
            if self.config.getoption("cordspec_report"):
                tr.write_line("cordspec: no suite test ran, so no report was written")
            return
        width = max(60, min(100, tr._tw.fullwidth))
        tr.write_sep("=", "cordspec clause report", fullwidth=width)
        for line in report.header_lines(width):
            tr.write_line(line)
        tr.write_line("")
        for line in report.clause_lines(width):
            tr.write_line(line)
        tr.write_line("")
        colour = {Kind.CONFORMS: "green", Kind.DEVIATES: "yellow", Kind.DOES_NOT_CONFORM: "red"}
        if report.header.interrupted:
            for line in report.verdict_lines():
                tr.write_line(line, bold=True, red=True)
        for (_, verdict), line in zip(
            report.shown_verdicts.items(), report.verdict_lines(), strict=False
        ):
            tr.write_line(line, bold=True, **{colour[verdict.kind]: True})
        for line in report.exit_lines():
            tr.write_line(line, red=True)
        why = report.why_lines(self._rerun, width)
        if why:
            tr.write_sep("-", "why each failed clause failed", fullwidth=width)
            for line in why:
                tr.write_line(line)
        for path in self.written:
            tr.write_line(f"cordspec report written to {path}")
        for error in self.errors:
            tr.write_line(error, red=True)
