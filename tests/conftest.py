"""Shared test configuration: Hypothesis settings profiles.

``HYPOTHESIS_PROFILE`` picks one of ``dev``, ``ci``, ``thorough``; otherwise ``ci`` when the ``CI``
environment variable is set (and not false), else ``dev``. The profile is always loaded explicitly,
because with ``CI`` set Hypothesis would otherwise load its own built-in ``ci`` profile.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=50)
settings.register_profile(
    "ci", derandomize=True, database=None, max_examples=100, deadline=None, print_blob=True
)
settings.register_profile("thorough", max_examples=2000, stateful_step_count=100, deadline=None)


def _profile() -> str:
    chosen = os.environ.get("HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    ci = os.environ.get("CI", "").strip().lower()
    return "ci" if ci not in ("", "0", "false", "no", "off") else "dev"


settings.load_profile(_profile())
