"""Hypothesis settings profiles of the conformance suite: ``dev``, ``ci`` and ``thorough``.

There is one way to choose one: Hypothesis' own pytest option, ``--hypothesis-profile NAME``
(``cordspec run`` passes it through to pytest). Without it, a run that collects the suite's
property-based modules uses ``ci`` when the ``CI`` environment variable is set (and not false),
else ``dev``, and without the shrink phase unless ``--shrink`` is given (``--cordspec-shrink``
under plain pytest): a verdict needs one failing example, not the smallest, and shrinking against a
broken implementation takes minutes. A run that failed that way ends with the command that gets
the minimal examples.

The profiles must exist before Hypothesis' pytest plugin reads ``--hypothesis-profile`` (at
configure time, before any test module is imported): cordspec's plugin calls :func:`configure`
first. In a run that is not the suite's it adds only the names no one registered, so that a
project's own profiles stay its own; a profile is loaded only by ``--hypothesis-profile`` or by
:func:`register`, which the suite's modules call when they are imported.
"""

from __future__ import annotations

import os
import shlex

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.errors import InvalidArgument

from .hypothesis_home import HOME_VARIABLE

__all__ = [
    "FAILURE_MARKERS",
    "HYPOTHESIS_PROFILES",
    "NO_SHRINK",
    "configure",
    "default_profile",
    "register",
    "register_profiles",
    "shrink_command",
    "shrink_hint_wanted",
]

HYPOTHESIS_PROFILES = ("dev", "ci", "thorough")
NO_SHRINK = "-no-shrink"
"""The suffix of each profile's variant without the shrink phase (``dev-no-shrink``, ...)."""
SHRINK_OPTION = "--shrink"
_explicit: bool | None = None
"""Whether this run named a profile with --hypothesis-profile; None outside pytest."""
_shrink = False
"""Whether this run asked for shrinking with --shrink."""


def _registered(name: str) -> bool:
    try:
        settings.get_profile(name)
    except InvalidArgument:
        return False
    return True


def register_profiles(replace: bool = True) -> None:
    """Register the three profiles and their variants without shrinking (again: registering is
    idempotent); with ``replace`` false only the names not registered yet, so that another
    project's own ``dev`` (or Hypothesis' built-in ``ci``) stays as it is."""
    quiet = [HealthCheck.too_slow]
    profiles = {
        # no example database: with the seed fixed a run draws the same examples anyway, and a
        # failure saved by an earlier run (of another implementation, maybe) would be replayed
        # first, so which deviation a report names would depend on the machine's history
        "dev": settings(max_examples=50, deadline=None, database=None, suppress_health_check=quiet),
        "ci": settings(
            derandomize=True,
            database=None,
            deadline=None,
            print_blob=True,
            suppress_health_check=quiet,
        ),
        "thorough": settings(
            max_examples=2000,
            stateful_step_count=100,
            deadline=None,
            suppress_health_check=quiet,
        ),
    }
    phases = tuple(p for p in Phase if p is not Phase.shrink)
    for name in HYPOTHESIS_PROFILES:
        if replace or not _registered(name):
            settings.register_profile(name, parent=profiles[name])
        if replace or not _registered(f"{name}{NO_SHRINK}"):
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


def configure(config: pytest.Config, ours: bool, shrink: bool = False) -> None:
    """Before Hypothesis' plugin loads the profile ``--hypothesis-profile`` names: register the
    profiles (only the missing names unless the run is ``ours``, the suite's), take the example
    directory ``cordspec run`` chose (in its runs only), and remember whether a profile was
    named and whether the run ``shrink``s (``--shrink``, from the run's settings)."""
    global _explicit, _shrink
    home = os.environ.get(HOME_VARIABLE)
    if home and ours:  # set by `cordspec run` (and inherited by xdist workers)
        set_hypothesis_home_dir(home)
    register_profiles(replace=ours)
    _shrink = shrink
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


def shrink_hint_wanted() -> bool:
    """Whether a run whose property-based tests failed should end with :func:`shrink_command`:
    it neither shrank nor chose a profile of its own."""
    return not (_shrink or _explicit)
