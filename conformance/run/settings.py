"""A run's settings, built and checked once: the implementation (target and the loaded object), the
profile, the chosen clauses, the deviations (file and what it declares), the report paths, the
time limit, shrinking and the Hypothesis profile, as one frozen :class:`RunSettings`.

``cordspec run`` builds it from its arguments (:meth:`RunSettings.from_args`) before pytest starts
and hands it to the plugin instance it starts pytest with; a plain pytest run, and each xdist
worker, builds it from its own pytest options (:meth:`RunSettings.from_config`), which
:meth:`RunSettings.pytest_args` spells: one round trip, in one place. The plugin stashes it on the
config once (:func:`stash`) and every reader takes it from there (:func:`settings_of`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

import pytest

from ..adapters import load_implementation, selected_target
from ..api import Implementation, ImplementationError
from ..profiles import PROFILES, Profile
from .deviations import (
    Deviation,
    builtin_deviations_path,
    read_deviations,
    suite_test_names,
    unmatched,
)
from .options import INI, SUITE, is_cordspec_run, pytest_flag, time_limit
from .report import Report, check_report_path
from .spec import load_spec

__all__ = [
    "CordspecRun",
    "DeviationsError",
    "RunSettings",
    "SettingsError",
    "handed",
    "settings_of",
    "stash",
]

_KEY = pytest.StashKey["RunSettings"]()
_RUN_KEY = pytest.StashKey["CordspecRun"]()


class SettingsError(ValueError):
    """A setting that cannot be used: the message names the option and the bad value."""


class DeviationsError(SettingsError):
    """A deviations file with malformed lines (or, for ``cordspec run``, lines that match
    nothing): one problem a line, ``SOURCE:LINE: problem``."""


def _no_deviations() -> Mapping[str, Deviation]:
    return MappingProxyType({})


@dataclass(frozen=True)
class RunSettings:
    """Everything a run's options say, checked, with what follows from them: the implementation
    loaded (or why it could not be) and the deviations that apply to its version."""

    impl: str
    """The implementation's target (``reference``, ``package.module:object``, ...)."""
    profile: Profile = "strict"
    reports: tuple[str, ...] = ()
    """The clause report's paths (Markdown for ``.md``, JSON for ``.json``)."""
    deviations_file: str | None = None
    """The deviations file the run named (None: the built-in adapter's own list, if any)."""
    hypothesis_profile: str | None = None
    shrink: bool = False
    timeout: float | None = None
    """The time limit given (None: the default, :attr:`time_limit`)."""
    clauses: tuple[str, ...] = ()
    """The clauses the run is narrowed to (none: every clause of the profile)."""
    implementation: Implementation | None = field(default=None, compare=False, repr=False)
    """The loaded implementation; None when it could not be loaded (:attr:`load_error`)."""
    load_error: str = field(default="", compare=False)
    """Why the implementation could not be loaded, as the ``impl`` fixture reports it."""
    deviations: Mapping[str, Deviation] = field(
        default_factory=_no_deviations, compare=False, repr=False
    )
    """The deviations that apply to the implementation's version, by target."""

    @property
    def time_limit(self) -> float:
        """Each suite test's limit in seconds (0: none)."""
        return time_limit(self.timeout, self.shrink)

    def pytest_args(self, extra: Sequence[str] = ()) -> list[str]:
        """The pytest command line of this run on the installed suite, with ``cordspec run``'s
        configuration and the options as the plugin spells them (``--cordspec-impl``, ...);
        :meth:`from_config` reads them back."""
        args = ["-c", str(INI), "--rootdir", str(INI.parent), "-p", "no:cacheprovider", str(SUITE)]
        args += ["--cordspec-impl", self.impl, "--cordspec-profile", self.profile]
        for path in self.reports:
            args += ["--cordspec-report", path]
        if self.deviations_file is not None:
            args += ["--cordspec-deviations", self.deviations_file]
        if self.hypothesis_profile is not None:
            args += ["--hypothesis-profile", self.hypothesis_profile]
        if self.shrink:
            args.append("--cordspec-shrink")
        if self.timeout is not None:
            args += ["--cordspec-timeout", repr(float(self.timeout))]
        for clause in self.clauses:
            args += ["--cordspec-clause", clause]
        return [*args, *extra]

    @classmethod
    def from_config(cls, config: pytest.Config) -> RunSettings:
        """The settings of a pytest run, from its ``--cordspec-*`` options, checked: a bad one is
        a :class:`pytest.UsageError` naming it. An implementation that cannot be loaded is one
        only on the controller of a cordspec run (said once, before any test or worker starts);
        elsewhere the ``impl`` fixture fails the tests that use it, with the reason."""
        try:
            return _build(
                impl=config.getoption("cordspec_impl", None),
                profile=config.getoption("cordspec_profile", "strict"),
                reports=config.getoption("cordspec_report", None) or (),
                deviations=config.getoption("cordspec_deviations", None),
                hypothesis_profile=config.getoption("hypothesis_profile", None),
                shrink=bool(config.getoption("cordspec_shrink", False)),
                timeout=config.getoption("cordspec_timeout", None),
                clauses=config.getoption("cordspec_clause", None) or (),
                flag=pytest_flag,
                must_load=is_cordspec_run(config) and not hasattr(config, "workerinput"),
            )
        except DeviationsError as exc:
            raise pytest.UsageError(f"bad deviations file:\n{exc}") from None
        except _LoadError as exc:
            raise pytest.UsageError(f"cordspec: {exc}") from None
        except SettingsError as exc:
            raise pytest.UsageError(str(exc)) from None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RunSettings:
        """The settings of ``cordspec run``, from its arguments, checked before pytest starts
        (:class:`SettingsError`, naming the bad value): report and deviations paths made
        absolute, the implementation loaded, and every line of the deviations file (whichever
        releases it names) matched against the spec and the suite."""
        deviations = args.deviations
        if deviations is not None:
            path = Path(deviations)
            deviations = str(path.resolve()) if path.is_file() else deviations
        return _build(
            impl=args.impl,
            profile=args.profile,
            reports=[str(Path(p).resolve()) for p in args.report],
            deviations=deviations,
            hypothesis_profile=args.hypothesis_profile,
            shrink=args.shrink,
            timeout=args.timeout,
            clauses=args.clause,
            flag=lambda flag: flag,
            must_load=True,
            every_line=True,
        )


class _LoadError(SettingsError):
    """An implementation that cannot be loaded."""


def _build(
    *,
    impl: str | None,
    profile: str,
    reports: Sequence[str],
    deviations: str | None,
    hypothesis_profile: str | None,
    shrink: bool,
    timeout: float | None,
    clauses: Sequence[str],
    flag: Callable[[str], str],
    must_load: bool,
    every_line: bool = False,
) -> RunSettings:
    """The settings, checked in ``cordspec run``'s order: clauses, profile, reports, time limit,
    the implementation (when it ``must_load``), the deviations file (``every_line``: each line,
    whatever releases it names, must parse and match a clause or a suite test)."""
    target = selected_target(impl)
    spec_clauses = load_spec().clauses if clauses else {}
    unknown = [c for c in clauses if c not in spec_clauses]
    if unknown:
        raise SettingsError(
            f"{flag('--clause')} {unknown[0]}: no such clause (cordspec clauses lists them)"
        )
    if profile not in PROFILES:
        raise SettingsError(f"{flag('--profile')} {profile}: no such profile (core or strict)")
    checked: Profile = "core" if profile == "core" else "strict"
    for path in reports:
        try:
            check_report_path(path)
        except ValueError as exc:
            raise SettingsError(f"{flag('--report')} {exc}") from None
    if timeout is not None and not timeout >= 0:
        raise SettingsError(f"{flag('--timeout')} {timeout:g}: not a number of seconds")
    implementation, error = _load(target, flag)
    if error and must_load:
        raise _LoadError(error)
    source = Path(deviations) if deviations else builtin_deviations_path(target)
    if deviations and not source.is_file():
        raise SettingsError(f"{flag('--deviations')} {deviations}: no such file")
    try:
        if every_line and deviations:
            everything = read_deviations(source)
            problems = unmatched(everything, load_spec().clauses, suite_test_names(SUITE))
            if problems:
                raise DeviationsError("\n".join(["deviations that match nothing:", *problems]))
        version = implementation.version if implementation is not None else None
        declared = read_deviations(source, version)
    except DeviationsError:
        raise
    except ValueError as exc:
        raise DeviationsError(str(exc)) from None
    return RunSettings(
        impl=target,
        profile=checked,
        reports=tuple(reports),
        deviations_file=deviations,
        hypothesis_profile=hypothesis_profile,
        shrink=shrink,
        timeout=timeout,
        clauses=tuple(clauses),
        implementation=implementation,
        load_error=error,
        deviations=MappingProxyType(declared),
    )


def _load(target: str, flag: Callable[[str], str]) -> tuple[Implementation | None, str]:
    """The implementation ``target`` names, or None and why not."""
    try:
        return load_implementation(target), ""
    except ImplementationError as exc:
        return None, str(exc)
    except Exception as exc:  # the module raised while importing: say so, don't trace it
        return None, f"cannot load {flag('--impl')} {target}: {type(exc).__name__}: {exc}"


def stash(config: pytest.Config, settings: RunSettings) -> None:
    """Make ``settings`` the run's, for every reader of ``config``."""
    config.stash[_KEY] = settings


def settings_of(config: pytest.Config) -> RunSettings:
    """The run's settings: those the plugin stashed at configure time (a cordspec run), else, in
    a run that uses the suite without being cordspec's (one importing suite classes), those its
    default options give, built on first use."""
    if _KEY not in config.stash:
        stash(config, RunSettings.from_config(config))
    return config.stash[_KEY]


class _Reporter(Protocol):
    report: Report | None


class CordspecRun:
    """The plugin instance ``cordspec run`` starts pytest with: the run's settings, built and
    checked before pytest started, and, once the run ended, its clause report. (Here, not in
    :mod:`.plugin`: importing that before pytest starts would import Hypothesis before pytest
    can rewrite its asserts, a warning in every run.)"""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self.reporter: _Reporter | None = None
        """The plugin's clause reporter in this run, which the plugin sets at configure time."""

    @property
    def report(self) -> Report | None:
        """The run's clause report; None when no suite test ran."""
        return self.reporter.report if self.reporter is not None else None

    @pytest.hookimpl(tryfirst=True)  # before the session configures the run, which reads it
    def pytest_cmdline_main(self, config: pytest.Config) -> None:
        config.stash[_RUN_KEY] = self


def handed(config: pytest.Config) -> CordspecRun | None:
    """The instance ``cordspec run`` started ``config``'s run with, if it did."""
    return config.stash.get(_RUN_KEY, None)
