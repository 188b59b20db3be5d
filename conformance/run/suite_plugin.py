"""The suite's pytest plugin: its markers, its fixtures (``impl``, ``blobs``, the two autouse
checks), the mapping of tests to clauses and of failures to deviations.

:mod:`.plugin` registers it only in a run that is the suite's (:func:`~.options.is_cordspec_run`)
or that imports the suite (``conformance.testing``, a subclass of a suite class); even then its
hooks and autouse fixtures act only on the suite's own tests (:func:`judged`), so that a project's
own ``clause`` or ``requires`` marker, or its own pyfakefs tests, are left as they are."""

from __future__ import annotations

import gc
import hashlib
import json
import re
import signal
import threading
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path

import pluggy
import pytest

from ..api import Capability, Implementation
from ..harness import interrupts
from ..harness.checks import failed_clauses
from ..harness.gc_freeze import FrozenHeap
from ..harness.helpers import Blobs, left_behind, placeholders
from .deviations import (
    Deviation,
    declared_clauses,
    reason_clauses,
    suite_test_names,
    unmatched,
)
from .options import is_cordspec_run
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
)
from .settings import settings_of
from .spec import Spec, load_spec
from .watchdog import Watchdog

__all__ = ["clause_ids", "deviations_of", "in_suite", "judged", "spec_of"]

_SMALL_BYTES = 4096
_SUITE = Path(__file__).parents[1] / "suite"
_SUITE_PACKAGE = "conformance.suite"
_SPEC_KEY = pytest.StashKey[Spec]()
_GIVEN_KEY = pytest.StashKey[bool]()
"""Whether this plugin's ``impl`` fixture gave a test the implementation (not an override)."""
_HUNG = re.compile(r"^Timeout \(>([0-9.]+)s\) from pytest-timeout")
"""pytest-timeout's message for a test that ran past its limit."""
UNMATCHED_OUTPUT = "cordspec_unmatched"
"""The ``workeroutput`` key under which an xdist worker hands on the deviations that match nothing
of what it collected."""
IMPLEMENTATION_PROPERTY = "cordspec_implementation"
"""The ``user_properties`` name under which a test records the implementation its ``impl`` ran."""


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
    config.addinivalue_line(
        "markers", "hooks: a test of the backend hooks, which cordspec run --backend runs"
    )
    config.addinivalue_line(
        "markers",
        "lowering: a hook test that judges lowering itself (the surrounding implementation's "
        "code, not a backend's), which cordspec run --backend leaves out",
    )
    config.pluginmanager.register(_InterruptGuard(), "cordspec-interrupt-guard")
    config.pluginmanager.register(FrozenHeap(config), "cordspec-frozen-heap")
    config.pluginmanager.register(Watchdog(), "cordspec-watchdog")  # a limit not to be swallowed


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
        suite_tests = any(judged(i) and i.get_closest_marker("clause") for i in session.items)
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


def in_suite(item: pytest.Item) -> bool:
    """Whether ``item`` is one of the suite's tests: defined in ``conformance/suite``, or a method
    of a subclass of a suite class (``conformance.testing``'s route)."""
    cls = getattr(item, "cls", None)
    if cls is not None and any(c.__module__.startswith(f"{_SUITE_PACKAGE}.") for c in cls.__mro__):
        return True
    module = getattr(getattr(item, "module", None), "__name__", "")
    return module.startswith(f"{_SUITE_PACKAGE}.") or _SUITE in Path(item.path).parents


def judged(item: pytest.Item) -> bool:
    """Whether the suite's markers and hooks apply to ``item``: every test of a run that is the
    suite's, and the suite's own tests in any other run."""
    return is_cordspec_run(item.config) or in_suite(item)


def clause_ids(item: pytest.Item, marker: str = "clause") -> list[str]:
    """The clause ids named by a test's ``clause`` (or other ``marker``) markers, in order."""
    ids: list[str] = []
    for mark in item.iter_markers(marker):
        ids.extend(str(arg) for arg in mark.args)
    return list(dict.fromkeys(ids))


def spec_of(config: pytest.Config) -> Spec:
    """The spec, read once per run."""
    if _SPEC_KEY not in config.stash:
        config.stash[_SPEC_KEY] = load_spec()
    return config.stash[_SPEC_KEY]


def deviations_of(config: pytest.Config) -> Mapping[str, Deviation]:
    """The run's deviations (``--cordspec-deviations``, else the adapter's own), as its settings
    read them."""
    return settings_of(config).deviations


def check_targets(config: pytest.Config, names: list[tuple[str, str]], cases: bool = True) -> None:
    """Stop the run with a usage error when a deviation matches nothing: no clause, no test
    function, or (with ``cases``) no case among the collected ones (``names``: each item's
    function and node name)."""
    deviations = deviations_of(config)
    if not deviations:  # nothing to match: the suite's source need not be parsed
        return
    tests = suite_test_names(_SUITE) | {function for function, _ in names}
    collected = (n for _, n in names) if cases else ()
    problems = unmatched(deviations, spec_of(config).clauses, tests, collected)
    if problems:
        raise pytest.UsageError("deviations that match nothing:\n" + "\n".join(problems))


@pytest.hookimpl(tryfirst=True)  # before -k or -m deselect: deviations are checked against all
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Check clause ids and deviations' targets, leave out tests outside the profile, mark known
    deviations xfail."""
    spec = spec_of(config)
    settings = settings_of(config)
    profile = settings.profile
    deviations = settings.deviations
    # Every process checks what it collected, before the profile, --clause, -k or -m leave any
    # of it out: a case those leave out is not run, never unmatched.
    names = [(getattr(i, "originalname", i.name), i.name) for i in items if judged(i)]
    try:
        if names:
            check_targets(config, names)
    except pytest.UsageError as exc:
        if not hasattr(config, "workeroutput"):
            raise
        # An xdist worker's usage error is an internal error of its controller: the worker runs
        # nothing and hands the problems on, and the controller stops with them.
        config.workeroutput[UNMATCHED_OUTPUT] = str(exc)
        config.hook.pytest_deselected(items=list(items))
        items[:] = []
        return
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    timeout = settings.time_limit
    limited = config.pluginmanager.hasplugin("timeout")  # pytest-timeout, a dependency
    for item in items:
        ids = clause_ids(item) if judged(item) else []
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
    chosen = set(settings.clauses)  # each a clause of the spec, as the settings checked
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
    if not judged(item):
        return
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
    declared = declared_clauses(deviations_of(item.config))
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
    settings = settings_of(pytestconfig)
    if settings.implementation is None:  # here, not where the run checked it (another process)
        pytest.fail(f"cordspec: {settings.load_error}", pytrace=False)
    pytestconfig.stash[_GIVEN_KEY] = True
    return settings.implementation


@pytest.fixture(autouse=True)
def _cordspec_applicable(request: pytest.FixtureRequest) -> None:
    """Skip, as "not applicable", a test needing a capability the implementation lacks; record
    which implementation a suite test's ``impl`` gave (the plugin's, or an override's)."""
    if not judged(request.node):
        return
    marks = list(request.node.iter_markers("requires"))
    if not marks and "impl" not in request.fixturenames:
        return
    implementation: Implementation = request.getfixturevalue("impl")
    if request.node.get_closest_marker("clause") is not None:
        request.node.user_properties.append(
            (IMPLEMENTATION_PROPERTY, _describe(implementation, request))
        )
    for mark in marks:
        for arg in mark.args:
            capability = Capability(arg)
            if capability not in implementation.capabilities:
                pytest.skip(f"{NOT_APPLICABLE_PREFIX}{implementation.why_absent(capability)}")


def _describe(implementation: Implementation, request: pytest.FixtureRequest) -> str:
    """What the report says of the implementation a test ran: name, version, absent
    capabilities, and how it was chosen (``--impl``, or the test file whose ``impl`` gave it)."""
    settings = settings_of(request.config)
    if request.config.stash.get(_GIVEN_KEY, False) and settings.implementation is implementation:
        chosen = settings.impl
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
    if "fs" in getattr(item, "fixturenames", ()) and judged(item):
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
    if request.node.get_closest_marker("clause") is None or not judged(request.node):
        yield
        return
    directory: Path = request.getfixturevalue("tmp_path")
    yield  # autouse, so set up first and torn down last: after ``blobs`` has closed its objects
    left = placeholders(directory)
    if left:
        raise left_behind(left, clause_ids(request.node))
