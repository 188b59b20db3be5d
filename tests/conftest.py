"""Shared test configuration: the suite's Hypothesis profiles
(conformance.harness.hypothesis_profiles).

``HYPOTHESIS_PROFILE`` picks one of ``dev``, ``ci``, ``thorough``; otherwise ``ci`` when the ``CI``
environment variable is set (and not false), else ``dev``. The profile is always loaded explicitly,
because with ``CI`` set Hypothesis would otherwise load its own built-in ``ci`` profile.
"""

from __future__ import annotations

import os

from hypothesis import settings

from conformance.harness.hypothesis_profiles import default_profile, register_profiles

register_profiles()
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or default_profile())
