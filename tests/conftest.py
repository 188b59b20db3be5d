"""Shared test configuration: the suite's Hypothesis profiles
(conformance.harness.hypothesis_profiles), chosen as in a ``cordspec run``: ``--hypothesis-profile
NAME`` (``dev``, ``ci``, ``thorough``), else ``ci`` when the ``CI`` environment variable is set
(and not false), else ``dev``. The default is loaded explicitly, because with ``CI`` set
Hypothesis would otherwise load its own built-in ``ci`` profile.

Python's SIGINT handler is installed when the run starts with SIGINT ignored (a shell's
background job, and every process it starts, ignores it; Python then keeps it ignored): the
tests of Ctrl-C, in this process, its workers and their children, need it to raise.
"""

from __future__ import annotations

import signal

import pytest
from hypothesis import settings

from conformance.harness.hypothesis_profiles import default_profile, register_profiles

register_profiles()  # before Hypothesis' plugin loads the profile --hypothesis-profile names


def pytest_configure(config: pytest.Config) -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not config.getoption("--hypothesis-profile", None):
        settings.load_profile(default_profile())
