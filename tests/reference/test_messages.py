"""The reference's exact error messages and errnos, where the spec asks only for the right
exception type naming the value: pinned down so that mutants of them are killed (``tox -e
mutation``, docs/mutation.md). These tests are about this implementation only.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

import reference.file_backed as file_backed
from conformance.harness.sinks import StuckSink
from reference import FileBackedData, FileChangedError, NamedDataStore, NamedDataStoreOutput
from reference.hooks import (
    LOW_MEMORY_MODE,
    CompileSpec,
    FileBackedAotiBackend,
    Weights,
    is_low_memory_mode,
)
from reference.location import identity_of, locate
from reference.named_data import DataEntry

pytestmark = pytest.mark.mutation  # the mutation run includes every test here

MakeFile = Callable[..., Path]
E = TypeVar("E", bound=BaseException)
ON = (CompileSpec(LOW_MEMORY_MODE, b"ON"),)
OFF = (CompileSpec(LOW_MEMORY_MODE, b"OFF"),)


def _raised(kind: type[E], call: Callable[[], object]) -> E:
    with pytest.raises(kind) as raised:
        call()
    return raised.value


def _message(call: Callable[[], object], kind: type[BaseException]) -> str:
    return str(_raised(kind, call))


def _store_with(key: str, data: bytes, tag: str | None = None, layout: object = None) -> Any:
    store = NamedDataStore()
    store.add_named_data(key, data, 1, tag, layout)
    return store


def _external(cap: object, prefix: object = "shard") -> Callable[[], None]:
    store = _store_with("inline", b"0123456789")
    return lambda: store.externalize_pte_data(cap, prefix)


def _merge(pte: dict[str, DataEntry], external: dict[str, dict[str, DataEntry]]) -> Any:
    other = NamedDataStoreOutput([b"zero", b"one"], pte, external)
    return lambda: NamedDataStore().merge_named_data_store(other)


E0, E1 = DataEntry(0, 1), DataEntry(1, 1)


MESSAGES: dict[str, tuple[Callable[[], object], type[BaseException], str]] = {
    "path-type": (
        lambda: FileBackedData(b"x"),
        TypeError,
        "path must be str or os.PathLike[str], not bytes: b'x'",
    ),
    "path-empty": (lambda: FileBackedData(""), ValueError, "path must not be empty"),
    "digest-type": (
        lambda: FileBackedData("x", sha256="ab"),
        TypeError,
        "sha256 must be bytes or None, not str: 'ab'",
    ),
    "digest-length": (
        lambda: FileBackedData("x", sha256=b"ab"),
        ValueError,
        "sha256 must be a 32-byte digest, got 2 bytes: b'ab'",
    ),
    "cleanup-type": (
        lambda: FileBackedData("x", cleanup=1),
        TypeError,
        "cleanup must be bool, not int: 1",
    ),
    "key-type": (
        lambda: NamedDataStore().add_named_data(5, b"x"),
        TypeError,
        "key must be str, not int: 5",
    ),
    "data-type": (
        lambda: NamedDataStore().add_named_data("k", "x"),
        TypeError,
        "Unsupported named data type: str",
    ),
    "alignment-type": (
        lambda: NamedDataStore().add_named_data("k", b"x", 1.5),
        TypeError,
        "alignment must be int, not float: 1.5",
    ),
    "alignment-zero": (
        lambda: NamedDataStore().add_named_data("k", b"x", 0),
        ValueError,
        "Alignment must be greater than 0, received 0.",
    ),
    "tag-type": (
        lambda: NamedDataStore().add_named_data("k", b"x", 1, 7),
        TypeError,
        "external_tag must be str or None, not int: 7",
    ),
    "tag-empty": (
        lambda: NamedDataStore().add_named_data("k", b"x", 1, ""),
        ValueError,
        "external_tag must not be empty (use None for data inline in the PTE)",
    ),
    "other-place-inline": (
        lambda: _store_with("k", b"x").add_named_data("k", b"x", 1, "t"),
        ValueError,
        "Duplicate key 'k' is stored inline in the PTE, not under external tag 't'",
    ),
    "other-place-tag": (
        lambda: _store_with("k", b"x", "t").add_named_data("k", b"x", 1, None),
        ValueError,
        "Duplicate key 'k' is stored under external tag 't', not inline in the PTE",
    ),
    "other-layout": (
        lambda: _store_with("k", b"x", None, "L1").add_named_data("k", b"x", 1, None, "L2"),
        ValueError,
        "Duplicate key 'k' with a different tensor layout: 'L1', then 'L2'",
    ),
    "merge-key-twice-inline": (
        _merge({"k": E0}, {"t": {"k": E1}}),
        ValueError,
        "key 'k' appears twice in the output: inline in the PTE and under external tag 't'",
    ),
    "merge-key-two-tags": (
        _merge({}, {"a": {"k": E0}, "b": {"k": E1}}),
        ValueError,
        "key 'k' appears twice in the output: under external tag 'a' and under external tag 'b'",
    ),
    "merge-index": (
        _merge({"k": DataEntry(2, 1)}, {}),
        ValueError,
        "entry 'k' refers to buffer 2, but the output has 2",
    ),
    "merge-entry-type": (
        _merge({"k": (0, 1, None)}, {}),
        TypeError,
        "entry 'k' must be a DataEntry, not tuple: (0, 1, None)",
    ),
    "merge-pte-type": (
        _merge(None, {}),
        TypeError,
        "pte_data must be a dict, not NoneType: None",
    ),
    "merge-external-type": (
        _merge({}, [1]),
        TypeError,
        "external_data must be a dict, not list: [1]",
    ),
    "merge-tag-map-type": (
        _merge({}, {"t": None}),
        TypeError,
        "external_data['t'] must be a dict, not NoneType: None",
    ),
    "merge-buffers-type": (
        lambda: NamedDataStore().merge_named_data_store(NamedDataStoreOutput(5, {}, {})),
        TypeError,
        "buffers must be a list, not int: 5",
    ),
    "cap-zero": (
        _external(0),
        ValueError,
        "external data shard cap must be a positive integer, got 0",
    ),
    "prefix-empty": (
        _external(64, ""),
        ValueError,
        "external data tag prefix must be nonempty, got ''",
    ),
    "cap-exceeded": (
        _external(4),
        ValueError,
        "buffer 0 has 10 bytes and exceeds external data shard cap 4",
    ),
    "low-memory-invalid": (
        lambda: is_low_memory_mode([CompileSpec(LOW_MEMORY_MODE, b"maybe")]),
        ValueError,
        "Invalid low_memory_mode: ['MAYBE']. Expected 'ON' or 'OFF'.",
    ),
    "low-memory-conflict": (
        lambda: is_low_memory_mode([*ON, *OFF]),
        ValueError,
        "Conflicting low_memory_mode compile specs: ['OFF', 'ON']",
    ),
    "materialize-shape": (
        lambda: FileBackedAotiBackend.materialize_weights_blob([Weights([]), Weights([])], ON),
        ValueError,
        "expected one Weights and one .wrapper.so output, got 2 and 0",
    ),
    "materialize-no-so": (
        lambda: FileBackedAotiBackend.materialize_weights_blob([Weights([])], ON),
        ValueError,
        "expected one Weights and one .wrapper.so output, got 1 and 0",
    ),
}


@pytest.mark.parametrize("case", list(MESSAGES))
def test_error_messages(case: str) -> None:
    call, kind, expected = MESSAGES[case]
    assert _message(call, kind) == expected


def test_messages_naming_a_file(make_file: MakeFile, tmp_path: Path) -> None:
    path = str(make_file("blob.bin", b"0123456789"))
    blob = FileBackedData(path)
    assert _message(lambda: blob.prefix(True), TypeError) == "size must be int, not bool: True"
    assert _message(lambda: blob.prefix(-1), ValueError) == "size must be >= 0, got -1"
    blob.close()
    assert _message(blob.to_bytes, ValueError) == (
        f"I/O operation on closed FileBackedData ({path!r})"
    )
    directory = tmp_path / "dir"
    directory.mkdir()
    raised = _raised(IsADirectoryError, lambda: FileBackedData(str(directory)))
    assert (raised.errno, raised.strerror, raised.filename) == (
        errno.EISDIR,
        "is a directory, not a file",
        str(directory),
    )
    os.mkfifo(tmp_path / "fifo")
    fifo = str(tmp_path / "fifo")
    assert _message(lambda: FileBackedData(fifo), ValueError) == f"not a regular file: {fifo!r}"


def test_messages_of_a_changed_file(make_file: MakeFile, tmp_path: Path) -> None:
    path = make_file("blob.bin", b"0123456789")
    blob = FileBackedData(str(path))
    path.write_bytes(b"0123")
    resized = _raised(FileChangedError, blob.to_bytes)
    assert (resized.errno, resized.strerror, resized.filename) == (
        errno.ESTALE,
        "the file changed size after it was wrapped: recorded 10 bytes, now 4",
        str(path),
    )
    other = make_file("other.bin", b"0123456789")
    os.replace(other, path)
    replaced = _raised(FileChangedError, blob.sha256)
    assert (replaced.errno, replaced.strerror, replaced.filename) == (
        errno.ESTALE,
        "the file was replaced after it was wrapped",
        str(path),
    )


def test_a_shrink_while_reading_names_the_size_reached(make_file: MakeFile) -> None:
    path = make_file("blob.bin", b"x" * 3000)
    reader = file_backed._VerifiedReader(locate(str(path), False), identity_of(os.stat(path)), 3000)
    with reader:
        os.truncate(path, 1000)
        raised = _raised(FileChangedError, lambda: reader.stream(lambda chunk: None))
    assert raised.errno == errno.ESTALE
    assert raised.strerror.endswith("recorded 3000 bytes, now 1000")


def test_ownership_messages(make_file: MakeFile) -> None:
    owner = FileBackedData.move_from(str(make_file("blob.bin", b"data")))
    try:
        assert _message(lambda: FileBackedData.move_from(owner.path), ValueError) == (
            f"cannot move {owner.path!r}: it is owned by {owner!r}"
        )
        assert _message(lambda: FileBackedData(owner.path, cleanup=True), ValueError) == (
            f"{owner.path!r} is already owned by {owner!r}"
        )
    finally:
        owner.close()


def test_a_sink_that_takes_nothing_is_an_eio(make_file: MakeFile) -> None:
    blob = FileBackedData(str(make_file("blob.bin", b"0123456789")))
    sink = StuckSink(0)
    raised = _raised(OSError, lambda: blob.write_to_file(sink))
    expected = f"the output {sink!r} accepted none of 10 bytes"
    assert (raised.errno, raised.strerror) == (errno.EIO, expected)


def test_a_low_memory_mode_that_is_no_text_is_named_as_bytes() -> None:
    """HOOK-LOW-3: a value that does not decode is a ValueError naming the bytes, not a bare
    UnicodeDecodeError."""
    message = _message(
        lambda: is_low_memory_mode([CompileSpec(LOW_MEMORY_MODE, b"\xffON")]), ValueError
    )
    assert message == "Invalid low_memory_mode: b'\\xffON'. Expected 'ON' or 'OFF'."


def test_move_from_names_a_source_that_is_no_regular_file(tmp_path: Path) -> None:
    """FBD-INIT-5/FBD-MOVE-8 through move_from: the FIFO's own path is named."""
    os.mkfifo(tmp_path / "fifo")
    fifo = str(tmp_path / "fifo")
    assert _message(lambda: FileBackedData.move_from(fifo), ValueError) == (
        f"not a regular file: {fifo!r}"
    )
