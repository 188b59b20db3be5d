"""The plugin's short explanation of unequal large byte strings (pytest's own diff is quadratic)."""

from __future__ import annotations

import hashlib

from conformance.run.suite_plugin import pytest_assertrepr_compare


def test_large_unequal_bytes_are_explained_by_offset_and_digest() -> None:
    left, right = b"a" * 10_000, b"a" * 6_000 + b"b" * 4_001
    lines = pytest_assertrepr_compare("==", left, right)
    assert lines == [
        "10000 bytes == 10001 bytes",
        "first difference at offset 6000",
        f"sha256 {hashlib.sha256(left).hexdigest()} vs {hashlib.sha256(right).hexdigest()}",
    ]


def test_a_prefix_differs_at_the_shorter_length() -> None:
    lines = pytest_assertrepr_compare("==", b"x" * 5000, b"x" * 6000)
    assert lines is not None and lines[1] == "first difference at offset 5000"


def test_small_bytes_and_other_types_keep_pytests_diff() -> None:
    assert pytest_assertrepr_compare("==", b"small", b"other") is None
    assert pytest_assertrepr_compare("==", "a" * 10_000, "b" * 10_000) is None
    assert pytest_assertrepr_compare("!=", b"a" * 10_000, b"a" * 10_000) is None
