"""Tests of ``conformance.harness.checks``: a failed check's exception type is its clauses' own, so
that Hypothesis, which tells failures apart by type and raising line, never shrinks a failure of one
clause into another's (``--shrink`` then blames what the plain run blamed)."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from conformance.harness.checks import ClauseFailure, blame, check, failed_clauses


def test_each_tuple_of_clauses_has_a_type_of_its_own() -> None:
    a, again, b = (
        ClauseFailure("x", ("A-1",)),
        ClauseFailure("y", ("A-1",)),
        ClauseFailure("z", ("B-1",)),
    )
    assert type(a) is type(again) and type(a) is not type(b)
    assert all(isinstance(e, ClauseFailure) and type(e) is not ClauseFailure for e in (a, b))
    assert type(a).__name__ == "ClauseFailure" and repr(a) == "ClauseFailure('x')"
    with pytest.raises(ClauseFailure) as blamed, blame("A-1"):
        raise KeyError("k")
    assert type(blamed.value) is type(a)
    copy = pickle.loads(pickle.dumps(a))
    assert (type(copy), copy.clauses, str(copy)) == (type(a), ("A-1",), "x")


def test_hypothesis_keeps_the_failures_of_two_clauses_apart() -> None:
    """Two clauses' checks fail at one line: shrinking keeps one failure per clause, instead of
    shrinking both into whichever clause's example is smaller."""

    @settings(database=None, derandomize=True, phases=[Phase.generate, Phase.shrink])
    @given(st.integers(0, 1000))
    def two_bugs(n: int) -> None:
        check(n < 500, f"{n} is too large", "A-1" if n % 2 else "B-1")

    with pytest.raises(BaseException) as caught:  # an ExceptionGroup of the two
        two_bugs()
    assert set(failed_clauses(caught.value) or ()) == {"A-1", "B-1"}, caught.value
