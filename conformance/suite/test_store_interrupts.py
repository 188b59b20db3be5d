"""NamedDataStore: an add or merge interrupted anywhere leaves the store before or after it.

Each scenario is run once with an interrupt injected at every line it executes, one line per run,
until it completes; the store must then equal the store before the call or the store the call
leaves, and take further work (NDS-ATOMIC-2).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.api import Implementation, NamedDataStore, NamedDataStoreOutput
from conformance.harness.helpers import PREFIX, State, state
from conformance.harness.interrupts import interrupted, require_steps

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on

RELIES: dict[str, tuple[str, ...]] = {
    # what makes the complete call's state the one every interrupted run must reach
    "add-equal-copy": ("NDS-DEDUP-1", "NDS-DEDUP-5", "NDS-OUT-2"),  # shares, first object kept
    "add-colliding": ("NDS-DEDUP-2", "NDS-DEDUP-4"),  # kept apart, by digests
    "re-add-alignment": ("NDS-KEY-2", "NDS-ALIGN-2"),  # accepted, alignment made the lcm
}

Setup = Callable[[Implementation], NamedDataStore]
Call = Callable[[Implementation, NamedDataStore], None]

# One object per blob for every run, so that buffer identities compare across runs.
STORED = b"stored blob"
COLLIDING_A = PREFIX + b"tail a"
COLLIDING_B = PREFIX + b"tail b"
COPY_OF_STORED = bytes(bytearray(STORED))
NEW = b"a new blob"
NEW_2 = b"another new blob"


def filled(impl: Implementation) -> NamedDataStore:
    store = impl.NamedDataStore()
    store.add_named_data("stored", STORED, 2)
    store.add_named_data("colliding", COLLIDING_A, 1, "weights")
    store.get_named_data_store_output()  # an output taken before: a snapshot to keep
    return store


def other_output(impl: Implementation) -> NamedDataStoreOutput:
    source = impl.NamedDataStore()
    source.add_named_data("new", NEW)
    source.add_named_data("copy", COPY_OF_STORED)
    source.add_named_data("stored", STORED, 8)  # re-added with another alignment
    source.add_named_data("second", COLLIDING_B, 1, "weights")  # a second buffer of a fingerprint
    source.add_named_data("tagged", NEW_2, 4, "new tag")
    return source.get_named_data_store_output()


SCENARIOS: dict[str, Call] = {
    "add-new-inline": lambda impl, s: s.add_named_data("new", NEW),
    "add-new-tag": lambda impl, s: s.add_named_data("new", NEW, 4, "new tag"),
    "add-equal-copy": lambda impl, s: s.add_named_data("copy", COPY_OF_STORED),
    "add-colliding": lambda impl, s: s.add_named_data("second", COLLIDING_B, 1, "weights"),
    "re-add-alignment": lambda impl, s: s.add_named_data("stored", STORED, 8),
}


def merge(impl: Implementation, store: NamedDataStore) -> None:
    store.merge_named_data_store(other_output(impl))


def sweep(impl: Implementation, call: Call) -> int:
    """Interrupt ``call`` at each of its lines in turn; returns how many runs it was interrupted."""
    before: State = state(filled(impl))
    complete = filled(impl)
    call(impl, complete)
    after: State = state(complete)
    assert after != before  # the scenario changes something
    at = 0
    while True:
        at += 1
        store = filled(impl)
        if not interrupted(lambda store=store: call(impl, store), at):  # type: ignore[misc]
            assert state(store) == after
            return at - 1
        now = state(store)
        assert now in (before, after), f"interrupted at line {at}: neither before nor after"
        # the store goes on: the call again, then one more add, give the complete store's state
        call(impl, store)
        assert state(store) == after, f"interrupted at line {at}: the call again differs"
        store.add_named_data("later", b"later")
        complete_later = filled(impl)
        call(impl, complete_later)
        complete_later.add_named_data("later", b"later")
        assert state(store) == state(complete_later)


class TestStoreInterrupts:
    """An add or merge interrupted at each line leaves the store before or after it."""

    @clause("NDS-ATOMIC-2")
    @pytest.mark.parametrize(
        "scenario",
        [
            pytest.param(s, marks=relies_on(*RELIES[s]) if s in RELIES else ())
            for s in sorted(SCENARIOS)
        ],
    )
    def test_interrupted_add_leaves_the_store_before_or_after(
        self, impl: Implementation, scenario: str
    ) -> None:
        require_steps(sweep(impl, SCENARIOS[scenario]), "lines", f"the store's {scenario}")

    @clause("NDS-ATOMIC-2")
    def test_interrupted_merge_leaves_the_store_before_or_after(self, impl: Implementation) -> None:
        # the output is made inside the call, so the sweep also interrupts making it: harmless
        require_steps(sweep(impl, merge), "lines", "the store's merge")
