"""NamedDataStore, model-based (spec section 4): the store state machine of
``conformance.harness.store_machine`` against the implementation under test.

Two tests, one per profile, so that a known deviation from a strict clause does not hide the core
result: the core machine runs in both profiles, the strict one only in strict runs.
"""

from __future__ import annotations

import pytest

from conformance.api import Implementation
from conformance.harness import hypothesis_profiles
from conformance.harness.store_machine import CORE_CLAUSES, STRICT_CLAUSES, run_machine

hypothesis_profiles.register()


class TestStoreMachine:
    @pytest.mark.clause(*CORE_CLAUSES)
    def test_core_store_machine(self, impl: Implementation) -> None:
        """The core semantics, whatever the run's profile: what is open in core is not checked."""
        run_machine(impl, "core")

    @pytest.mark.clause(*STRICT_CLAUSES)
    def test_strict_store_machine(self, impl: Implementation) -> None:
        """The strict semantics (a strict run only: every clause named here is strict)."""
        run_machine(impl, "strict")
