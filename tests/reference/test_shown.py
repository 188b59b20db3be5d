"""reference.shown: values shown in error messages without running their code, and bounded."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.shown import INT_BITS, LIMIT, TEXT_LIMIT, shown, type_name


class Boom(Exception):
    pass


def _boom(*_: object) -> Any:
    raise Boom


class Hostile:
    __repr__ = __str__ = __format__ = __len__ = __iter__ = __hash__ = _boom


class _Meta(type):
    @property
    def __name__(cls) -> str:  # type: ignore[override]
        raise Boom


class Named(metaclass=_Meta):
    __repr__ = _boom


class HostileStr(str):
    __repr__ = __str__ = __len__ = __getitem__ = _boom


class HostileInt(int):
    __repr__ = __str__ = __index__ = __int__ = _boom


class HostileBytes(bytes):
    __repr__ = __len__ = __getitem__ = _boom


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**INT_BITS - 1), max_value=2**INT_BITS - 1),
    st.floats(allow_nan=True),
    st.text(max_size=TEXT_LIMIT),
    st.binary(max_size=TEXT_LIMIT),
    st.complex_numbers(allow_nan=False),
)


@given(value=st.one_of(scalars, st.lists(scalars, max_size=5), st.tuples(scalars)))
def test_an_exact_builtin_value_is_shown_by_its_repr(value: object) -> None:
    assert shown(value) == repr(value)


@given(value=st.dictionaries(st.text(max_size=5), scalars, max_size=5))
def test_a_dict_of_builtins_is_shown_by_its_repr(value: object) -> None:
    assert shown(value) == repr(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Hostile(), "<Hostile object>"),
        (Named(), "<Named object>"),
        (HostileStr("key"), "HostileStr('key')"),
        (HostileInt(-8), "HostileInt(-8)"),
        (HostileBytes(b"ab"), "HostileBytes(b'ab')"),
        ([Hostile(), 1], "[<Hostile object>, 1]"),
        (set(), "set()"),
        (frozenset({1}), "frozenset({1})"),
        ((1,), "(1,)"),
        (bytearray(b"x"), "bytearray(b'x')"),
    ],
    ids=lambda value: type(value).__mro__[0].__qualname__ if not isinstance(value, str) else value,
)
def test_no_code_of_the_value_runs(value: object, expected: str) -> None:
    assert shown(value) == expected


def test_the_type_name_is_read_from_the_types_own_slot() -> None:
    assert type_name(Named()) == "Named"


def test_an_int_past_pythons_digit_limit_is_shown_by_its_size() -> None:
    assert shown(-(10**5000)) == "-<int of 16610 bits>"
    assert shown(HostileInt(10**5000)) == "HostileInt(<int of 16610 bits>)"
    assert shown(2**INT_BITS - 1) == str(2**INT_BITS - 1)


def test_long_text_is_shown_by_its_ends_and_length() -> None:
    text = "a" * 50 + "b" * 10**6 + "c" * 50
    out = shown(text)
    assert out.startswith("'" + "a" * 50) and out.endswith(f"{'c' * 50}' ({len(text)} characters)")
    assert len(out) < 300
    assert shown(b"x" * 10**6).endswith("(1000000 bytes)")


def test_a_container_is_bounded_in_items_depth_and_length() -> None:
    loop: list[object] = [1]
    loop.append(loop)
    assert shown(loop) == "[1, [1, [1, <list object>]]]"
    assert shown(list(range(100))).endswith(", 19, ... (80 more)]")
    huge = [["x" * TEXT_LIMIT] * 20] * 20
    assert len(shown(huge)) <= LIMIT + 40


@given(value=st.binary(max_size=TEXT_LIMIT).map(bytearray))
def test_a_bytearray_is_shown_by_its_own_repr(value: bytearray) -> None:
    assert shown(value) == repr(value)
