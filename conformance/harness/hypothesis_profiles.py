"""Hypothesis settings profiles of the conformance suite: ``dev``, ``ci`` and ``thorough``.

Choose one with Hypothesis' own pytest option, ``--hypothesis-profile NAME`` (``cordspec run``
passes it through to pytest). Without it, a run that collects the suite's property-based modules
uses ``ci`` when the ``CI`` environment variable is set (and not false), else ``dev``, and without
the shrink phase unless ``--shrink`` is given (``--cordspec-shrink`` under plain pytest): a
verdict needs one failing example, not the smallest, and shrinking against a broken
implementation takes minutes. A run that failed that way
ends with the command that gets the minimal examples.

The profiles must exist before Hypothesis' pytest plugin reads ``--hypothesis-profile`` (at
configure time, before any test module is imported), so this module is also a pytest plugin
(entry point ``cordspec-hypothesis``) that registers them first. Registering only adds names;
a profile is loaded only by ``--hypothesis-profile`` or by :func:`register`, which the suite's
modules call when they are imported.
"""

from __future__ import annotations

import os
import shlex

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.configuration import set_hypothesis_home_dir

from ..run.report import CLAUSES_PROPERTY
from .hypothesis_home import HOME_VARIABLE

__all__ = [
    "HYPOTHESIS_PROFILES",
    "NO_SHRINK",
    "default_profile",
    "register",
    "register_profiles",
    "shrink_command",
]

HYPOTHESIS_PROFILES = ("dev", "ci", "thorough")
NO_SHRINK = "-no-shrink"
"""The suffix of each profile's variant without the shrink phase (``dev-no-shrink``, ...)."""
SHRINK_OPTION = "--shrink"
PYTEST_SHRINK_OPTION = "--cordspec-shrink"
"""``cordspec run``'s ``--shrink`` as the pytest plugin spells it (prefixed, so that it cannot clash
with another plugin's option)."""
_explicit: bool | None = None
"""Whether this run named a profile with --hypothesis-profile; None outside pytest."""
_shrink = False
"""Whether this run asked for shrinking with --shrink."""


def register_profiles() -> None:
    """Register the three profiles (again: registering is idempotent)."""
    quiet = [HealthCheck.too_slow]
    settings.register_profile("dev", max_examples=50, deadline=None, suppress_health_check=quiet)
    settings.register_profile(
        "ci",
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=True,
        suppress_health_check=quiet,
    )
    settings.register_profile(
        "thorough",
        max_examples=2000,
        stateful_step_count=100,
        deadline=None,
        suppress_health_check=quiet,
    )
    phases = tuple(p for p in Phase if p is not Phase.shrink)
    for name in HYPOTHESIS_PROFILES:
        settings.register_profile(
            f"{name}{NO_SHRINK}", parent=settings.get_profile(name), phases=phases
        )


def default_profile() -> str:
    """``ci`` when the ``CI`` environment variable says so, else ``dev``."""
    ci = os.environ.get("CI", "").strip().lower()
    return "ci" if ci not in ("", "0", "false", "no", "off") else "dev"


def register() -> None:
    """Register the profiles, and load the default one unless this run chose a profile: without
    its shrink phase unless the run asked for ``--shrink``.

    The default is loaded explicitly even under ``CI``, where Hypothesis would otherwise keep its
    own built-in ``ci`` profile.
    """
    register_profiles()
    chosen = _explicit
    if chosen is None:  # not configured through the plugin: judge by the profile loaded now
        chosen = settings.get_current_profile_name() not in ("default", "ci")
    if not chosen:
        settings.load_profile(default_profile() + ("" if _shrink else NO_SHRINK))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("cordspec").addoption(
        PYTEST_SHRINK_OPTION,
        action="store_true",
        default=False,
        help="shrink failing examples to minimal ones (slower: off by default, unless "
        "--hypothesis-profile names a profile)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register the profiles before Hypothesis' plugin loads the one ``--hypothesis-profile``
    names, and remember whether it named one."""
    global _explicit, _shrink
    home = os.environ.get(HOME_VARIABLE)
    if home:  # set by `cordspec run` (and inherited by xdist workers)
        set_hypothesis_home_dir(home)
    register_profiles()
    _shrink = bool(config.getoption("cordspec_shrink", False))
    try:
        _explicit = bool(config.getoption("--hypothesis-profile"))
    except ValueError:  # Hypothesis' plugin is not active in this run
        _explicit = False


FAILURE_MARKERS = ("Falsifying example", "Failing test case")
"""How Hypothesis introduces the example of a failure, in its older releases and its newer."""


def shrink_command(impl: str, profile: str, deviations: str | None, tests: list[str]) -> str:
    """The ``cordspec run`` command that runs ``tests`` (node ids) again with shrinking."""
    names = dict.fromkeys(t.rpartition("::")[2].partition("[")[0] for t in tests)
    args = ["cordspec", "run", "--impl", impl, "--profile", profile]
    if deviations is not None:
        args += ["--deviations", deviations]
    args += [SHRINK_OPTION, "--", "-k", " or ".join(names)]
    return shlex.join(args)


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """After a run whose property-based suite tests failed without shrinking: the command that
    gets their minimal examples."""
    config = terminalreporter.config
    failed = [
        r.nodeid
        for r in terminalreporter.stats.get("failed", [])
        if r.when == "call"
        and any(p[0] == CLAUSES_PROPERTY for p in r.user_properties)
        and any(marker in str(r.longrepr) for marker in FAILURE_MARKERS)
    ]
    if _shrink or _explicit or not failed:
        return
    from ..adapters import selected_target

    command = shrink_command(
        selected_target(config.getoption("cordspec_impl")),
        config.getoption("cordspec_profile"),
        config.getoption("cordspec_deviations"),
        failed,
    )
    terminalreporter.write_line(
        "cordspec: failing examples were not shrunk; for minimal ones, run: " + command,
        yellow=True,
    )
