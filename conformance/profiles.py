"""The spec's two profiles: ``core``, what every implementation meets, and ``strict``, core plus
the strict clauses. Its own module, so that the suite's harness and the runner share it without
importing each other."""

from __future__ import annotations

from typing import Literal

__all__ = ["PROFILES", "Profile"]

Profile = Literal["core", "strict"]
PROFILES: tuple[Profile, ...] = ("core", "strict")
"""Every profile, each including the ones before it."""
