"""Wrong types and values fed to every public method (spec sections 2.1, 3.1-3.3, 4.1 and 4.7).

Each test draws hostile arguments (ints as paths, ``bytearray``, ``memoryview``, ``str``, ``None``,
bools, floats, huge and negative numbers, non-str keys and tags, unicode and over-long file names)
and checks that only the documented exceptions come out, that nothing changed (files, store,
Cord) and that no file was left behind. Tests of core clauses check only what core requires; the
messages naming the value are checked by the tests of strict clauses.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conformance.api import FileBackedData, Implementation
from conformance.harness import hypothesis_profiles
from conformance.harness.checks import check
from conformance.harness.helpers import placeholders, snapshot

hypothesis_profiles.register()

clause = pytest.mark.clause
requires = pytest.mark.requires

FEW = settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
DATA = bytes(range(256)) * 4
DIGEST = hashlib.sha256(DATA).digest()

huge = st.integers(min_value=-(2**80), max_value=2**80)
small = st.integers(min_value=-5, max_value=70)
hostile: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    small,
    huge,
    st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=40),
    st.binary(max_size=40).map(bytearray),
    st.binary(max_size=40).map(lambda b: memoryview(b)),
    st.text(max_size=40),
    st.lists(small, max_size=3),
    st.tuples(small),
    st.dictionaries(st.text(max_size=3), small, max_size=2),
    st.builds(object),
    st.complex_numbers(allow_nan=False, max_magnitude=1e6),
)
"""Values of every kind a caller may pass by mistake."""

name_chars = st.characters(codec="utf-8", exclude_characters="/\0")  # no lone surrogates
file_names = st.one_of(
    st.text(name_chars, min_size=1, max_size=40),
    st.text(name_chars, min_size=250, max_size=300),  # over NAME_MAX bytes: ENAMETOOLONG
    st.sampled_from([".", "..", " ", "\u00e9\u4e2d\U0001f600", "-", "x" * 300]),
)


def names(exc: BaseException, value: object) -> bool:
    """Whether ``exc``'s message names ``value``: its repr, in full (an empty string may be named
    as empty instead)."""
    message = str(exc)
    if isinstance(value, (str, bytes)) and not value and "empty" in message:
        return True
    return repr(value) in message


def has_null_byte(value: object) -> bool:
    """Whether ``value`` is a string or buffer holding a NUL, which no OS path can."""
    if isinstance(value, str):
        return "\0" in value
    return isinstance(value, (bytes, bytearray, memoryview)) and 0 in bytes(value)


def check_error(exc: BaseException, value: object, *, strict: bool) -> None:
    """``exc`` is a documented error; under strict, a TypeError/ValueError names ``value``."""
    assert isinstance(exc, (TypeError, ValueError, OSError)), f"undocumented {exc!r}"
    if strict and not isinstance(exc, OSError):
        assert names(exc, value), f"{exc!r} does not name {value!r}"


@contextmanager
def scratch() -> Iterator[Path]:
    """A fresh directory for one example, the current one while it runs (Hypothesis reruns a test
    body within one ``tmp_path``)."""
    directory = Path(tempfile.mkdtemp(prefix="cordspec-hostile-"))
    cwd = os.getcwd()
    os.chdir(directory)  # a drawn relative path can name nothing of the caller's
    try:
        yield directory
    finally:
        os.chdir(cwd)
        shutil.rmtree(directory, ignore_errors=True)


def listing(directory: Path) -> dict[str, bytes]:
    """Every file in ``directory`` with its contents."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def attempt(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        return call(), None
    except Exception as exc:
        return None, exc


def closing(result: Any) -> None:
    if result is not None:
        result.close()


# --- FileBackedData and move_from: paths ---------------------------------------------------------


path_values = st.one_of(hostile, file_names.map(lambda n: ("name", n)))


def _resolve(directory: Path, value: Any, create: bool) -> Any:
    """A ("name", n) draw becomes a str path in ``directory`` (a file when ``create`` and the OS
    accepts the name); anything else is passed as drawn."""
    if not (isinstance(value, tuple) and len(value) == 2 and value[0] == "name"):
        return value
    path = directory / value[1]
    if create and value[1] not in (".", ".."):
        with contextlib.suppress(OSError):  # a name the OS refuses is passed all the same
            path.write_bytes(DATA)
    return str(path)


@pytest.mark.requires("file-backed")
class TestFileBackedDataPath:
    @clause("FBD-INIT-5")
    @FEW
    @given(value=path_values, create=st.booleans(), cleanup=st.booleans())
    def test_any_path_to_the_constructor(
        self, impl: Implementation, value: Any, create: bool, cleanup: bool
    ) -> None:
        assume(not has_null_byte(value))  # test_a_path_with_a_null_byte_is_named
        with scratch() as directory:
            path = _resolve(directory, value, create)
            before = listing(directory)
            result, exc = attempt(lambda: impl.FileBackedData(path, cleanup=cleanup))
            try:
                if exc is None:
                    assert isinstance(path, str) and os.path.isfile(path), f"accepted {path!r}"
                    assert result.to_bytes() == DATA
                else:
                    check_error(exc, path, strict=True)
            finally:
                closing(result)
            if exc is None:  # what close() does to the file: FBD-CLOSE-1 owned, FBD-INIT-2 not
                if cleanup:
                    check(not os.path.lexists(path), "close() left the owned file", "FBD-CLOSE-1")
                else:
                    check(os.path.isfile(path), "close() deleted a borrowed file", "FBD-INIT-2")
            after = listing(directory)
            if exc is None and cleanup:
                before.pop(os.path.basename(path))
            assert after == before

    @clause("FBD-MOVE-4", "FBD-MOVE-5")
    @FEW
    @given(value=path_values, create=st.booleans())
    def test_any_path_to_move_from(self, impl: Implementation, value: Any, create: bool) -> None:
        with scratch() as directory:
            path = _resolve(directory, value, create)
            before = listing(directory)
            result, exc = attempt(lambda: impl.FileBackedData.move_from(path))
            owned = impl.path_of(result) if exc is None else None
            try:
                if exc is None:
                    assert isinstance(path, str), f"moved {path!r}"
                    assert result.to_bytes() == DATA
                else:
                    check_error(exc, path, strict=False)
            finally:
                closing(result)
            if owned is not None:
                check(not os.path.lexists(owned), "close() left the owned file", "FBD-CLOSE-1")
            after = listing(directory)
            if exc is None:
                before.pop(os.path.basename(path))
            assert after == before
            assert placeholders(directory) == []

    @clause("FBD-INIT-5")
    @FEW
    @given(value=path_values, create=st.booleans())
    def test_any_path_to_move_from_is_named(
        self, impl: Implementation, value: Any, create: bool
    ) -> None:
        assume(not has_null_byte(value))  # test_a_path_with_a_null_byte_is_named
        with scratch() as directory:
            path = _resolve(directory, value, create)
            result, exc = attempt(lambda: impl.FileBackedData.move_from(path))
            closing(result)
            if exc is not None:
                check_error(exc, path, strict=True)
            else:
                assert isinstance(path, str), f"moved {path!r}"

    @clause("FBD-INIT-5")
    @pytest.mark.parametrize("path", ["x\0y", b"x\0y"], ids=["str", "bytes"])
    @pytest.mark.parametrize("method", ["constructor", "move_from"])
    def test_a_path_with_a_null_byte_is_named(
        self,
        impl: Implementation,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        path: str | bytes,
        method: str,
    ) -> None:
        """The OS's own error ("embedded null byte") names neither the path nor the argument."""
        monkeypatch.chdir(tmp_path)  # the relative path, were it cut at the NUL, would land here
        make = impl.FileBackedData if method == "constructor" else impl.FileBackedData.move_from
        with pytest.raises((TypeError, ValueError)) as info:
            closing(make(path))
        assert names(info.value, path), f"{info.value!r} does not name {path!r}"
        assert list(tmp_path.iterdir()) == []


# --- FileBackedData: cleanup and digests ---------------------------------------------------------


@pytest.mark.requires("file-backed")
class TestFileBackedDataOptions:
    @clause("FBD-INIT-6")
    @FEW
    @given(cleanup=hostile, sha256=st.one_of(hostile, st.binary(min_size=31, max_size=33)))
    def test_any_cleanup_and_digest_to_the_constructor(
        self, impl: Implementation, cleanup: Any, sha256: Any
    ) -> None:
        assume(not (isinstance(cleanup, bool) and (sha256 is None or len_is_digest(sha256))))
        with scratch() as directory:
            (directory / "x.bin").write_bytes(DATA)
            before = listing(directory)
            result, exc = attempt(
                lambda: impl.FileBackedData(
                    str(directory / "x.bin"), cleanup=cleanup, sha256=sha256
                )
            )
            closing(result)
            assert exc is not None, f"accepted cleanup={cleanup!r}, sha256={sha256!r}"
            assert isinstance(exc, (TypeError, ValueError)), exc
            assert names(exc, cleanup) or names(exc, sha256), exc
            assert listing(directory) == before

    @clause("FBD-INIT-6")
    @FEW
    @given(sha256=st.one_of(hostile, st.binary(min_size=31, max_size=33)))
    def test_any_digest_to_move_from(self, impl: Implementation, sha256: Any) -> None:
        assume(not (sha256 is None or len_is_digest(sha256)))
        with scratch() as directory:
            (directory / "x.bin").write_bytes(DATA)
            before = listing(directory)
            result, exc = attempt(
                lambda: impl.FileBackedData.move_from(str(directory / "x.bin"), sha256=sha256)
            )
            closing(result)
            assert exc is not None, f"accepted sha256={sha256!r}"
            check_error(exc, sha256, strict=True)
            assert listing(directory) == before
            assert placeholders(directory) == []


def len_is_digest(value: object) -> bool:
    return type(value) is bytes and len(value) == len(DIGEST)


# --- prefix ----------------------------------------------------------------------------------


@pytest.mark.requires("file-backed")
class TestPrefix:
    @clause("FBD-READ-3")
    @FEW
    @given(size=st.one_of(hostile, huge))
    def test_any_prefix_size(self, impl: Implementation, size: Any) -> None:
        with scratch() as directory:
            (directory / "x.bin").write_bytes(DATA)
            blob: FileBackedData = impl.FileBackedData(str(directory / "x.bin"))
            try:
                result, exc = attempt(lambda: blob.prefix(size))
                if type(size) is int and size >= 0:
                    assert exc is None, exc
                    assert result == DATA[:size]
                else:
                    assert exc is not None, f"prefix({size!r}) returned {result!r}"
                    assert isinstance(exc, (TypeError, ValueError)), exc
                    assert isinstance(exc, ValueError) == (type(size) is int), exc
                    check_error(exc, size, strict=True)
                assert blob.to_bytes() == DATA
            finally:
                blob.close()
            check((directory / "x.bin").is_file(), "close() deleted a borrowed file", "FBD-INIT-2")
            assert listing(directory) == {"x.bin": DATA}


# --- Cord ------------------------------------------------------------------------------------


class TestCord:
    @clause("CORD-TYPE-1")
    @FEW
    @given(value=hostile, through=st.sampled_from(["append", "constructor"]))
    def test_any_cord_piece(self, impl: Implementation, value: Any, through: str) -> None:
        assume(not isinstance(value, bytes))
        assume(not (through == "constructor" and value is None))
        cord = impl.Cord(b"kept")
        if through == "append":
            with pytest.raises(TypeError) as raised:
                cord.append(value)
            assert len(cord) == 4
            assert bytes(cord) == b"kept"
        else:
            with pytest.raises(TypeError) as raised:
                impl.Cord(value)
        assert type(value).__name__ in str(raised.value), raised.value


# --- NamedDataStore --------------------------------------------------------------------------


def seeded(impl: Implementation) -> Any:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"alpha")
    store.add_named_data("b", b"beta", alignment=16, external_tag="ext")
    return store


def _alignment_clause(alignment: object) -> str:
    """The clause a wrong alignment breaks: an int of 0 or less NDS-ADD-3, any other NDS-ADD-5."""
    return "NDS-ADD-3" if type(alignment) is int and alignment <= 0 else "NDS-ADD-5"


class TestAddNamedData:
    @clause("NDS-ADD-1", "NDS-ADD-3")
    @FEW
    @given(data=hostile, alignment=st.one_of(st.none(), small, huge))
    def test_any_data_and_int_alignment(
        self, impl: Implementation, data: Any, alignment: Any
    ) -> None:
        store = seeded(impl)
        before = snapshot(store)
        _, exc = attempt(lambda: store.add_named_data("new", data, alignment=alignment))
        if isinstance(data, bytes) and (alignment is None or alignment > 0):
            assert exc is None, exc
            return
        culprit = "NDS-ADD-3" if isinstance(data, bytes) else "NDS-ADD-1"  # the alignment, or data
        check(exc is not None, f"accepted data={data!r}, alignment={alignment!r}", culprit)
        if isinstance(data, bytes):
            check(
                isinstance(exc, ValueError)
                and str(exc) == f"Alignment must be greater than 0, received {alignment}.",
                f"alignment {alignment!r} raised {exc!r}",
                culprit,
            )
        else:
            check(
                isinstance(exc, ValueError)
                or (isinstance(exc, TypeError) and type(data).__name__ in str(exc)),
                f"data of type {type(data).__name__} raised {exc!r}",
                culprit,
            )
        check(snapshot(store) == before, "the refused add changed the store", culprit)

    @clause("NDS-ADD-5", "NDS-ADD-6", "NDS-ATOMIC-1")
    @FEW
    @given(
        key=st.one_of(hostile, st.text(max_size=10)),
        alignment=st.one_of(hostile, small),
        tag=st.one_of(hostile, st.text(max_size=10)),
    )
    def test_any_key_alignment_and_tag(
        self, impl: Implementation, key: Any, alignment: Any, tag: Any
    ) -> None:
        good_key = isinstance(key, str)
        good_alignment = alignment is None or (
            type(alignment) is int and alignment > 0  # NDS-ADD-3 for ints <= 0
        )
        good_tag = tag is None or (isinstance(tag, str) and tag != "")
        assume(key not in ("a", "b"))
        store = seeded(impl)
        before = snapshot(store)
        _, exc = attempt(
            lambda: store.add_named_data(key, b"gamma", alignment=alignment, external_tag=tag)
        )
        if good_key and good_alignment and good_tag:
            assert exc is None, exc
            return
        culprits = [
            (value, clause_of)
            for value, good, clause_of in (
                (key, good_key, "NDS-ADD-6"),
                (alignment, good_alignment, _alignment_clause(alignment)),
                (tag, good_tag, "NDS-ADD-6"),
            )
            if not good
        ]
        broken = sorted({clause_of for _, clause_of in culprits})
        given = f"key={key!r}, alignment={alignment!r}, tag={tag!r}"
        check(exc is not None, f"accepted {given}", *broken)
        check(isinstance(exc, (TypeError, ValueError)), f"{given} raised {exc!r}", *broken)
        named = exc is not None and (any(names(exc, value) for value, _ in culprits) or tag == "")
        check(named, f"{exc!r} names none of the wrong values", *broken)
        check(snapshot(store) == before, "the refused add changed the store", "NDS-ATOMIC-1")


class TestExternalizeInput:
    @clause("NDS-EXT-1")
    @requires("externalize")
    @FEW
    @given(cap=st.one_of(hostile, small), prefix=st.one_of(st.just(""), st.text(min_size=1)))
    def test_any_externalize_arguments(self, impl: Implementation, cap: Any, prefix: str) -> None:
        good_cap = type(cap) is int and cap > 0
        assume(not (good_cap and prefix))
        store = seeded(impl)
        before = snapshot(store)
        with pytest.raises(ValueError):
            store.externalize_pte_data(cap, prefix)
        assert snapshot(store) == before

    @clause("NDS-EXT-8")
    @requires("externalize")
    @FEW
    @given(prefix=hostile)
    def test_any_tag_prefix_type(self, impl: Implementation, prefix: Any) -> None:
        assume(not isinstance(prefix, str))
        store = seeded(impl)
        before = snapshot(store)
        with pytest.raises(ValueError) as raised:
            store.externalize_pte_data(1 << 20, prefix)
        assert names(raised.value, prefix), raised.value
        assert snapshot(store) == before


@pytest.mark.requires("file-backed")
class TestNameTooLong:
    """A path whose name is longer than the filesystem allows."""

    @pytest.mark.clause("FBD-INIT-5")
    @pytest.mark.parametrize("how", ["constructor", "owning", "move_from"])
    @pytest.mark.parametrize("where", ["name", "path"])
    def test_a_name_longer_than_the_filesystem_allows(
        self, impl: Implementation, tmp_path: Path, how: str, where: str
    ) -> None:
        """ENAMETOOLONG naming the path, and no placeholder: for a component longer than
        NAME_MAX, or a path longer than PATH_MAX."""
        limit = os.pathconf(tmp_path, "PC_NAME_MAX")
        if where == "name":
            path = tmp_path / ("n" * (limit + 1))
        else:
            path = tmp_path / "/".join(
                ["d" * limit] * (os.pathconf(tmp_path, "PC_PATH_MAX") // limit)
            )
        with pytest.raises(OSError) as raised:
            if how == "move_from":
                impl.FileBackedData.move_from(str(path))
            else:
                impl.FileBackedData(str(path), cleanup=how == "owning")
        assert raised.value.errno == errno.ENAMETOOLONG
        assert raised.value.filename == str(path)
        assert placeholders(tmp_path) == []
