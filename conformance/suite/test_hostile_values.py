"""Values that fight back: keys UTF-8 cannot encode, and bad arguments whose own methods raise or
whose text has no bound (spec NDS-KEY-7, NDS-ADD-9, FBD-INIT-10).

A bad value must get the error its clause promises, named without running any code of the value's;
a key or tag the store accepts must survive every later operation of the store.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.api import Implementation, NamedDataStore
from conformance.harness.helpers import Blobs, state

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on
requires = pytest.mark.requires

BOUND = 4096 + 512
"""The longest message a bad value may give: its shown form (at most 4096 characters) and the
clause's words."""
HUGE = -(10**5000)
"""An int Python's ``str`` refuses (more than 4300 digits)."""


class Called(Exception):
    """Raised by a method of a hostile value: the implementation ran code of the value's."""


_ARMED = [False]
"""Whether the hostile methods raise: only while the implementation is called (``_raised``), so
that pytest can still show the values when it reports a failure."""


def _refuse(self: object, *_: object) -> Any:
    if _ARMED[0]:
        raise Called("the implementation called a method of the bad value")
    return f"<hostile {object.__repr__(self)}>"


class Unprintable:
    """A value whose every way to text raises."""

    __repr__ = __str__ = __format__ = _refuse


class _Nameless(type):
    @property
    def __name__(cls) -> str:  # type: ignore[override]  # a property raising, as a hostile metaclass may
        if _ARMED[0]:
            raise Called("the implementation read __name__ through the metaclass")
        return "Nameless"


class Nameless(Unprintable, metaclass=_Nameless):
    """An unprintable value whose type's ``__name__``, read through its metaclass, raises."""


class Disguised(Unprintable):
    """An unprintable value whose ``__class__`` raises (``isinstance`` asks it)."""

    @property  # type: ignore[misc]  # a property raising, as a hostile value may define
    def __class__(self) -> type:
        if _ARMED[0]:
            raise Called("the implementation asked the bad value its __class__")
        return Disguised


class UnprintableInt(int):
    """An int of a subclass whose text raises."""

    __repr__ = __str__ = __format__ = _refuse


class UnprintableFloat(float):
    __repr__ = __str__ = __format__ = _refuse


class UnprintableStr(str):
    __repr__ = __str__ = __format__ = _refuse


class UnprintableBytes(bytes):
    __repr__ = __str__ = __format__ = _refuse


UNPRINTABLES: dict[str, Callable[[], object]] = {
    "repr-raises": Unprintable,
    "metaclass-name-raises": Nameless,
    "class-raises": Disguised,
    "float-subclass": lambda: UnprintableFloat(1.5),
}
"""Each made in its test, as a fresh value."""
TYPE_NAMES = {"Unprintable", "Nameless", "Disguised", "UnprintableFloat"}


def _check_named(exc: BaseException, expected: type[BaseException], value: object) -> None:
    """``exc`` is the promised error, bounded, naming the bad value's type."""
    assert not isinstance(exc, Called), f"the implementation ran the value's code: {exc}"
    assert isinstance(exc, expected), f"expected {expected.__name__}, got {exc!r}"
    message = str(exc)
    assert len(message) <= BOUND, f"a message of {len(message)} characters"
    assert any(name in message for name in TYPE_NAMES), f"{message!r} does not name the type"


def _raised(call: Callable[[], object]) -> BaseException:
    """What ``call`` raised, with the hostile methods armed while it ran."""
    _ARMED[0] = True
    try:
        call()
    except BaseException as exc:  # Called is an Exception; an interrupt is not expected here
        return exc
    finally:
        _ARMED[0] = False
    raise AssertionError("the bad value was accepted")


def seeded(impl: Implementation) -> NamedDataStore:
    store = impl.NamedDataStore()
    store.add_named_data("kept", b"kept data")
    store.add_named_data("kept.ext", b"external data", 8, "ext")
    return store


@contextlib.contextmanager
def _kept_as_it_was(impl: Implementation) -> Iterator[NamedDataStore]:
    """A :func:`seeded` store for the block, which must leave it as it was: what the block
    does to it is refused, and a refused call changes nothing."""
    store = seeded(impl)
    before = state(store)
    yield store
    assert state(store) == before


class TestUnformattableArguments:
    @clause("NDS-ADD-9")
    @relies_on("NDS-ADD-6", "NDS-ATOMIC-1")
    @pytest.mark.parametrize("made", UNPRINTABLES)
    @pytest.mark.parametrize("argument", ["key", "tag", "alignment"])
    def test_a_bad_value_whose_text_raises_is_named_by_its_type(
        self, impl: Implementation, made: str, argument: str
    ) -> None:
        value = UNPRINTABLES[made]()
        with _kept_as_it_was(impl) as store:
            arguments: dict[str, object] = {"key": "new", "tag": None, "alignment": 1}
            arguments[argument] = value
            exc = _raised(
                lambda: store.add_named_data(
                    arguments["key"],
                    b"new data",
                    arguments["alignment"],
                    arguments["tag"],
                )
            )
            _check_named(exc, TypeError, value)

    @clause("NDS-ADD-9")
    @relies_on("NDS-ADD-3", "NDS-ADD-8")
    @pytest.mark.parametrize(
        "alignment", [HUGE, UnprintableInt(-8), UnprintableInt(HUGE)], ids=["huge", "sub", "both"]
    )
    def test_a_negative_alignment_gets_the_add_3_message(
        self, impl: Implementation, alignment: int
    ) -> None:
        with _kept_as_it_was(impl) as store:
            exc = _raised(lambda: store.add_named_data("new", b"new data", alignment))
            assert not isinstance(exc, Called), f"the implementation ran the value's code: {exc}"
            assert isinstance(exc, ValueError), repr(exc)
            message = str(exc)
            assert message.startswith("Alignment must be greater than 0, received "), message[:200]
            assert message.endswith("."), message[-200:]
            assert len(message) <= BOUND, f"a message of {len(message)} characters"
            if int.__index__(alignment) == -8:
                assert message == "Alignment must be greater than 0, received -8."

    @clause("NDS-ADD-9")
    @relies_on("NDS-ADD-6")
    @pytest.mark.parametrize(
        "tag",
        [b"t" * 10**7, ["t"] * 10**6, UnprintableBytes(b"t" * 10**6)],
        ids=["long-bytes", "long-list", "bytes-subclass"],
    )
    def test_a_bad_value_of_no_bounded_text_gives_a_bounded_message(
        self, impl: Implementation, tag: object
    ) -> None:
        with _kept_as_it_was(impl) as store:
            exc = _raised(lambda: store.add_named_data("new", b"new data", 1, tag))
            assert not isinstance(exc, Called), f"the implementation ran the value's code: {exc}"
            assert isinstance(exc, TypeError), repr(exc)
            assert len(str(exc)) <= BOUND, f"a message of {len(str(exc))} characters"

    @clause("NDS-ADD-9")
    @relies_on("NDS-MERGE-7", "NDS-MERGE-6")
    @pytest.mark.parametrize("made", list(UNPRINTABLES)[:2])
    @pytest.mark.parametrize("where", ["key", "alignment"])
    def test_a_merged_output_with_an_unprintable_value(
        self, impl: Implementation, made: str, where: str
    ) -> None:
        value = UNPRINTABLES[made]()
        with _kept_as_it_was(impl) as store:
            key, alignment = (value, 1) if where == "key" else ("new", value)
            other = impl.NamedDataStoreOutput(
                [b"new data"], {key: impl.DataEntry(0, alignment, None)}, {}
            )
            exc = _raised(lambda: store.merge_named_data_store(other))
            _check_named(exc, TypeError, value)

    @clause("NDS-ADD-9")
    @requires("externalize")
    @relies_on("NDS-EXT-1", "NDS-EXT-8")
    @pytest.mark.parametrize(
        ("cap", "prefix"),
        [(Unprintable(), "p"), (HUGE, "p"), (1 << 20, Unprintable()), (1 << 20, Nameless())],
        ids=["cap-repr-raises", "cap-huge", "prefix-repr-raises", "prefix-metaclass"],
    )
    def test_externalize_arguments(self, impl: Implementation, cap: object, prefix: object) -> None:
        with _kept_as_it_was(impl) as store:
            exc = _raised(lambda: store.externalize_pte_data(cap, prefix))  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
            bad = cap if prefix == "p" else prefix
            if bad is HUGE:
                refused = isinstance(exc, ValueError) and "Exceeds the limit" not in str(exc)
                assert refused, repr(exc)
                assert len(str(exc)) <= BOUND
            else:
                _check_named(exc, ValueError, bad)


@requires("file-backed")
class TestUnformattableFileArguments:
    @clause("FBD-INIT-10")
    @relies_on("FBD-INIT-5", "FBD-INIT-6")
    @pytest.mark.parametrize("made", UNPRINTABLES)
    @pytest.mark.parametrize("argument", ["path", "move_from", "cleanup", "sha256"])
    def test_a_bad_argument_whose_text_raises_is_named_by_its_type(
        self, impl: Implementation, tmp_path: Path, made: str, argument: str
    ) -> None:
        value = UNPRINTABLES[made]()
        source = tmp_path / "data.bin"
        source.write_bytes(b"some data")
        calls: dict[str, Callable[[], object]] = {
            "path": lambda: impl.FileBackedData(value),
            "move_from": lambda: impl.FileBackedData.move_from(value),
            "cleanup": lambda: impl.FileBackedData(str(source), cleanup=value),
            "sha256": lambda: impl.FileBackedData(str(source), sha256=value),
        }
        exc = _raised(calls[argument])
        _check_named(exc, TypeError, value)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["data.bin"]
        assert source.read_bytes() == b"some data"

    @clause("FBD-INIT-10")
    @relies_on("FBD-READ-3")
    @pytest.mark.parametrize(
        "size", [Unprintable(), UnprintableFloat(2.0), HUGE], ids=["repr", "float", "huge"]
    )
    def test_a_bad_prefix_size(self, impl: Implementation, blobs: Blobs, size: object) -> None:
        blob = blobs.track(impl.FileBackedData(str(blobs.file(b"some data"))))
        exc = _raised(lambda: blob.prefix(size))
        if size is HUGE:
            assert isinstance(exc, ValueError) and "Exceeds the limit" not in str(exc), repr(exc)
            assert len(str(exc)) <= BOUND
        else:
            _check_named(exc, TypeError, size)
        assert blob.to_bytes() == b"some data"


LONE_SURROGATES = ["\udcff", "weights.\ud800", "\udc80\udc81 name"]
"""Keys as ``os.fsdecode`` gives them for names that are not UTF-8 (and a high surrogate)."""


def _check_refused_naming(
    impl: Implementation, text: str, change: Callable[[NamedDataStore], object]
) -> None:
    """``change`` of a :func:`seeded` store raises ValueError naming ``text`` by its repr, and
    leaves the store as it was (NDS-KEY-7)."""
    with _kept_as_it_was(impl) as store:
        with pytest.raises(ValueError) as raised:
            change(store)
        assert repr(text) in str(raised.value), f"{raised.value!r} does not name {text!r}"


class TestKeysUtf8CannotEncode:
    @clause("NDS-KEY-7")
    @relies_on("NDS-ATOMIC-1")
    @pytest.mark.parametrize("text", LONE_SURROGATES, ids=["low", "high", "two"])
    @pytest.mark.parametrize("argument", ["key", "tag"])
    def test_refused_at_add(self, impl: Implementation, text: str, argument: str) -> None:
        key, tag = (text, None) if argument == "key" else ("new", text)

        def add(store: NamedDataStore) -> None:
            store.add_named_data(key, b"new data", 1, tag)

        _check_refused_naming(impl, text, add)

    @clause("NDS-KEY-7")
    @relies_on("NDS-MERGE-6")
    @pytest.mark.parametrize("text", LONE_SURROGATES, ids=["low", "high", "two"])
    @pytest.mark.parametrize("argument", ["key", "tag"])
    def test_refused_by_a_merge(self, impl: Implementation, text: str, argument: str) -> None:
        def merge(store: NamedDataStore) -> None:
            entry = impl.DataEntry(0, 1, None)
            other = (
                impl.NamedDataStoreOutput([b"new data"], {text: entry}, {})
                if argument == "key"
                else impl.NamedDataStoreOutput([b"new data"], {}, {text: {"new": entry}})
            )
            store.merge_named_data_store(other)

        _check_refused_naming(impl, text, merge)

    @clause("NDS-KEY-7")
    @requires("externalize")
    @relies_on("NDS-EXT-1")
    def test_a_tag_prefix_refused_by_externalize(self, impl: Implementation) -> None:
        with _kept_as_it_was(impl) as store:
            with pytest.raises(ValueError) as raised:
                store.externalize_pte_data(1 << 20, "constants\udcff")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
            assert repr("constants\udcff") in str(raised.value), raised.value

    @clause("NDS-KEY-7")
    @requires("externalize")
    @relies_on("NDS-EXT-2", "NDS-EXT-9")
    @pytest.mark.parametrize(
        "key", ["a\0b", "\0", "", "\U0001f600 \u00e9", "\ufffd", "\x7f\x01"], ids=repr
    )
    def test_every_other_str_survives_externalize(self, impl: Implementation, key: str) -> None:
        store = seeded(impl)
        store.add_named_data(key, b"new data", 4, None)
        store.externalize_pte_data(1 << 20, "constants")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
        out = store.get_named_data_store_output()
        assert out.pte_data == {}
        found = [tag for tag, entries in out.external_data.items() if key in entries]
        assert len(found) == 1, f"{key!r} is under {found}"
        entry = out.external_data[found[0]][key]
        assert out.buffers[entry.buffer_index] == b"new data" and entry.alignment == 4
