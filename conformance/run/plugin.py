"""cordspec's pytest plugin (entry point ``cordspec``): the run options (``--cordspec-impl``, ...),
the registration of :mod:`.suite_plugin`, and the clause report: a status per clause and a verdict
per profile (terminal summary, ``--report`` files).

Installed, it loads in every pytest run of the environment, so it is inert, as Hypothesis' plugin
is: it adds its options, and registers the suite's markers, fixtures and hooks only in a run that
is the suite's (:func:`~.options.is_cordspec_run`) or that imports the suite (:func:`activate`).
The reporter it registers in every run acts only on reports of the suite's tests, which carry
their clauses."""

from __future__ import annotations

import dataclasses
import json
import shlex

import pytest

from ..harness import hypothesis_profiles
from . import suite_plugin
from .deviations import declared_clauses
from .options import add_run_options, is_cordspec_run
from .report import (
    CLAUSES_PROPERTY,
    OVERRIDE_PREFIX,
    Collector,
    Kind,
    Report,
    build_report,
    make_header,
)
from .settings import RunSettings, handed, settings_of, stash
from .suite_plugin import (
    IMPLEMENTATION_PROPERTY,
    UNMATCHED_OUTPUT,
    check_targets,
    deviations_of,
    spec_of,
)

__all__ = ["activate"]

SUITE_PLUGIN_NAME = "cordspec-suite"
_REPORTER_NAME = "cordspec-reporter"
_configs: list[pytest.Config] = []
"""The pytest runs configured in this process and not yet ended, innermost last (pytester nests
them)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cordspec", "cordspec conformance suite")
    add_run_options(group.addoption, pytest=True)


@pytest.hookimpl(tryfirst=True)  # before Hypothesis' plugin loads --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    ours = is_cordspec_run(config)
    run = handed(config)
    settings = None
    if ours:  # the settings, once: those cordspec run built, else from the options
        settings = run.settings if run is not None else RunSettings.from_config(config)
        stash(config, settings)
    _configs.append(config)
    hypothesis_profiles.configure(config, ours, shrink=settings is not None and settings.shrink)
    if ours:
        activate(config)
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist) reports
        reporter = _Reporter(config)
        config.pluginmanager.register(reporter, _REPORTER_NAME)
        if run is not None:
            run.reporter = reporter


def pytest_unconfigure(config: pytest.Config) -> None:
    if config in _configs:
        _configs.remove(config)


def activate(config: pytest.Config | None = None) -> None:
    """Register the suite's plugin (:mod:`.suite_plugin`) in ``config``'s run, once; by default in
    the innermost run configured in this process, if any (the suite's package calls this when it
    is imported, so that a run importing suite classes gets their fixtures and markers)."""
    if config is None:
        if not _configs:
            return
        config = _configs[-1]
    if not config.pluginmanager.has_plugin(SUITE_PLUGIN_NAME):
        config.pluginmanager.register(suite_plugin, SUITE_PLUGIN_NAME)


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
    parts.extend(f"--clause {c}" for c in settings_of(config).clauses)
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
        # a worker that collected nothing says why itself
        if self.checked or not ids or not is_cordspec_run(self.config):
            return
        self.checked = True
        names = [nodeid.rpartition("::")[2] for nodeid in ids]
        try:  # the cases a worker kept are not all it collected: the worker checked those
            check_targets(self.config, [(n.partition("[")[0], n) for n in names], cases=False)
        except pytest.UsageError as exc:
            pytest.exit(f"cordspec: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        """Under pytest-xdist: the deviations a worker found to match nothing it collected."""
        problem = getattr(node, "workeroutput", {}).get(UNMATCHED_OUTPUT)
        if problem and f"cordspec: {problem}" not in self.errors:
            self.errors.append(f"cordspec: {problem}")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.collector.add(report)
        for prop in report.user_properties:  # a list once it went through xdist
            if isinstance(prop, (tuple, list)) and prop[0] == IMPLEMENTATION_PROPERTY:
                self.ran.add(str(prop[1]))

    def _build(self) -> Report:
        config = self.config
        settings = settings_of(config)
        spec = spec_of(config)
        profile = settings.profile
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
                chosen=settings.clauses,
            )
            return build_report(spec, header, self.collector.results(), self._declared())
        # described in the report; the tests already said what failed
        error = settings.load_error
        header = make_header(
            settings.impl, profile, spec, settings.implementation, error, partial=partial
        )
        header = dataclasses.replace(header, chosen=settings.clauses)
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
        settings = settings_of(config)
        args = ["cordspec", "run", "--impl", settings.impl, "--profile", settings.profile]
        deviations = settings.deviations_file
        if deviations:
            args += ["--deviations", deviations]
        args += ["--clause", clause]
        return shlex.join([*args, "--", *pytest_extra] if pytest_extra else args)

    def _declared(self) -> dict[str, str]:
        """The clauses the deviations file declares, with their reasons."""
        return {c: d.reason for c, d in declared_clauses(deviations_of(self.config)).items()}

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
        for path in settings_of(self.config).reports:
            try:
                report.write(path)
            except OSError as exc:
                self.errors.append(f"cordspec: --report {path}: cannot write it: {exc}")
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
            else:
                self.written.append(path)
        if session.exitstatus == pytest.ExitCode.OK and not report.exit_ok:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        self._clause_summary(terminalreporter)
        self._shrink_hint(terminalreporter)

    def _shrink_hint(self, terminalreporter: pytest.TerminalReporter) -> None:
        """After a run whose property-based suite tests failed without shrinking: the command
        that gets their minimal examples."""
        failed = [
            r.nodeid
            for r in terminalreporter.stats.get("failed", [])
            if r.when == "call"
            and any(p[0] == CLAUSES_PROPERTY for p in r.user_properties)
            and any(m in str(r.longrepr) for m in hypothesis_profiles.FAILURE_MARKERS)
        ]
        if not failed or not hypothesis_profiles.shrink_hint_wanted():
            return
        settings = settings_of(self.config)
        command = hypothesis_profiles.shrink_command(
            settings.impl, settings.profile, settings.deviations_file, failed
        )
        terminalreporter.write_line(
            "cordspec: failing examples were not shrunk; for minimal ones, run: " + command,
            yellow=True,
        )

    def _clause_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        tr = terminalreporter
        report = self.report
        if report is None:
            for error in self.errors:
                tr.write_line(error, red=True)
            if is_cordspec_run(self.config) and settings_of(self.config).reports:
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
