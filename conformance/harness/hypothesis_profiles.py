"""Hypothesis settings profiles of the conformance suite: ``dev``, ``ci`` and ``thorough``.

Choose one with Hypothesis' own pytest option, ``--hypothesis-profile NAME`` (``cordspec run``
passes it through to pytest). Without it, a run that collects the suite's property-based modules
uses ``ci`` when the ``CI`` environment variable is set (and not false), else ``dev``.

The profiles must exist before Hypothesis' pytest plugin reads ``--hypothesis-profile`` (at
configure time, before any test module is imported), so this module is also a pytest plugin
(entry point ``cordspec-hypothesis``) that registers them first. Registering only adds names;
a profile is loaded only by ``--hypothesis-profile`` or by :func:`register`, which the suite's
modules call when they are imported.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

from .hypothesis_home import HOME_VARIABLE

__all__ = ["HYPOTHESIS_PROFILES", "default_profile", "register", "register_profiles"]

HYPOTHESIS_PROFILES = ("dev", "ci", "thorough")
_explicit: bool | None = None
"""Whether this run named a profile with --hypothesis-profile; None outside pytest."""


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


def default_profile() -> str:
    """``ci`` when the ``CI`` environment variable says so, else ``dev``."""
    ci = os.environ.get("CI", "").strip().lower()
    return "ci" if ci not in ("", "0", "false", "no", "off") else "dev"


def register() -> None:
    """Register the profiles, and load the default one unless this run chose a profile.

    The default is loaded explicitly even under ``CI``, where Hypothesis would otherwise keep its
    own built-in ``ci`` profile.
    """
    register_profiles()
    chosen = _explicit
    if chosen is None:  # not configured through the plugin: judge by the profile loaded now
        chosen = settings.get_current_profile_name() not in ("default", "ci")
    if not chosen:
        settings.load_profile(default_profile())


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register the profiles before Hypothesis' plugin loads the one ``--hypothesis-profile``
    names, and remember whether it named one."""
    global _explicit
    home = os.environ.get(HOME_VARIABLE)
    if home:  # set by `cordspec run` (and inherited by xdist workers)
        set_hypothesis_home_dir(home)
    register_profiles()
    try:
        _explicit = bool(config.getoption("--hypothesis-profile"))
    except ValueError:  # Hypothesis' plugin is not active in this run
        _explicit = False
