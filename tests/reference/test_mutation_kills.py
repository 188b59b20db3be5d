"""The reference's own behaviour where the spec leaves it free, pinned down so that mutants of it
are killed (``tox -e mutation``, docs/mutation.md): exact error messages and errnos, ``repr``,
the backend hooks' internals, and the bookkeeping of release. Spec behaviour is tested by the
conformance suite (``conformance/suite/test_mutation_kills.py`` holds the tests added for mutants
there); these tests are about this implementation only.
"""

from __future__ import annotations

import errno
import gc
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pytest

import reference.file_backed as file_backed
from reference import FileBackedData, FileChangedError, NamedDataStore, NamedDataStoreOutput
from reference.hooks import (
    LOW_MEMORY_MODE,
    AotiBackend,
    BackendDetails,
    CompileSpec,
    FileBackedAotiBackend,
    PreprocessResult,
    Weights,
    WeightsBlobPath,
    is_low_memory_mode,
)
from reference.named_data import DataEntry

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


# --- exact error messages -----------------------------------------------------------------------


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
    reader = file_backed._VerifiedReader(str(path), _identity(path), 3000)
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


def _identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


# --- repr ---------------------------------------------------------------------------------------


def test_repr_tells_borrowed_owned_and_closed(make_file: MakeFile) -> None:
    path = str(make_file("blob.bin", b"0123456789"))
    borrowed = FileBackedData(path)
    assert repr(borrowed) == f"FileBackedData({path!r}, size=10, borrowed)"
    owned = FileBackedData.move_from(path)
    assert repr(owned) == f"FileBackedData({owned.path!r}, size=10, owned)"
    owned.close()
    assert repr(owned) == f"FileBackedData({owned.path!r}, size=10, closed)"


# --- release bookkeeping ------------------------------------------------------------------------


def test_release_at_collection_forgets_the_owner(make_file: MakeFile) -> None:
    blob = FileBackedData.move_from(str(make_file("blob.bin", b"data")))
    identity = blob._identity
    assert identity in file_backed._owners
    del blob
    gc.collect()
    assert identity not in file_backed._owners


def test_a_failed_release_warns_from_the_reference(
    make_file: MakeFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    blob = FileBackedData.move_from(str(make_file("blob.bin", b"data")))
    path = blob.path
    identity = blob._identity

    def refuse(target: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", target)

    monkeypatch.setattr(os, "unlink", refuse)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del blob
        gc.collect()
    monkeypatch.undo()
    try:
        [warning] = caught
        assert warning.category is RuntimeWarning
        assert Path(warning.filename).name == "file_backed.py"
        assert str(warning.message) == (
            f"could not remove {path!r}: [Errno 13] Permission denied: {path!r}"
        )
        assert identity not in file_backed._owners
    finally:
        os.unlink(path)


def test_a_placeholder_gone_after_a_failed_rename_is_no_error(
    make_file: MakeFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = make_file("blob.bin", b"data")

    def replace_fails_and_loses_the_placeholder(src: Any, dst: Any) -> None:
        os.unlink(dst)
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "replace", replace_fails_and_loses_the_placeholder)
    raised = _raised(OSError, lambda: FileBackedData.move_from(str(source)))
    assert raised.errno == errno.EXDEV
    assert source.read_bytes() == b"data"
    assert sorted(os.listdir(tmp_path)) == ["blob.bin"]


# --- backend hooks ------------------------------------------------------------------------------


def test_default_store_keeps_the_blob_inline_with_alignment_one(make_file: MakeFile) -> None:
    store = NamedDataStore()
    key = AotiBackend.store_weights_blob(str(make_file("w.blob", b"weights")), OFF, store)
    out = store.get_named_data_store_output()
    assert (out.pte_data, out.external_data) == ({key: DataEntry(0, 1)}, {})
    assert AotiBackend.get_device_name() == "cpu"
    assert AotiBackend.save_data_externally() is False


class _Cuda(AotiBackend):
    seen: ClassVar[list[object]] = []

    @classmethod
    def get_device_name(cls) -> str:
        return "cuda"

    @classmethod
    def save_data_externally(cls) -> bool:
        return True

    @classmethod
    def load_weights_blob(cls, blob_path: str, compile_specs: Any) -> Any:
        cls.seen.append(compile_specs)
        return super().load_weights_blob(blob_path, compile_specs)


def test_a_backend_saving_externally_uses_its_device_tag(make_file: MakeFile) -> None:
    store = NamedDataStore()
    key = _Cuda.store_weights_blob(str(make_file("w.blob", b"weights")), OFF, store)
    out = store.get_named_data_store_output()
    assert (out.pte_data, out.external_data) == ({}, {"aoti_cuda_blob": {key: DataEntry(0, 1)}})
    assert _Cuda.seen == [OFF]


def test_low_memory_backend_off_keeps_the_default(make_file: MakeFile) -> None:
    path = make_file("w.blob", b"weights")
    data, digest = FileBackedAotiBackend.load_weights_blob(str(path), OFF)
    assert (data, len(digest), path.exists()) == (b"weights", 64, False)
    paths = ["model.wrapper.so", Weights([b"w"])]
    assert FileBackedAotiBackend.materialize_weights_blob(paths, OFF) is paths
    assert FileBackedAotiBackend.materialize_weights_blob("model.wrapper.so", ON) == (
        "model.wrapper.so"
    )


def test_materialize_replaces_the_weights_by_the_blob_beside_the_so(tmp_path: Path) -> None:
    so_path = str(tmp_path / "model.wrapper.so")
    Path(so_path).write_bytes(b"\x7fELF")
    other = str(tmp_path / "kernels.cubin")
    paths = FileBackedAotiBackend.materialize_weights_blob(
        [so_path, Weights([b"ab", b"cd"]), other], ON
    )
    blob = str(tmp_path / "model.wrapper_weights.blob")
    assert paths == [so_path, other, blob]
    assert isinstance(paths[2], WeightsBlobPath)
    assert not any(isinstance(p, Weights) for p in paths)
    assert Path(blob).read_bytes() == b"abcd"
    data, _ = FileBackedAotiBackend.load_weights_blob(paths[2], ON)
    assert isinstance(data, FileBackedData)
    data.close()


class _Probe(BackendDetails):
    @staticmethod
    def preprocess(edge_program: object, compile_specs: Any) -> PreprocessResult:
        return PreprocessResult(repr(edge_program).encode())


def test_preprocess_multimethod_refuses_unpaired_specs() -> None:
    message = _message(
        lambda: _Probe.preprocess_multimethod({"forward": [1, 2]}, {"forward": [()]}),
        ValueError,
    )
    assert message == "method 'forward' has 2 programs but 1 compile-spec lists"
    results = _Probe.preprocess_multimethod({"forward": [1, 2]}, {"forward": [(), ()]})
    assert [r.processed_bytes for r in results["forward"]] == [b"1", b"2"]


class _TakesNothing:
    def write(self, data: Any) -> int:
        return 0


def test_a_sink_that_takes_nothing_is_an_eio(make_file: MakeFile) -> None:
    blob = FileBackedData(str(make_file("blob.bin", b"0123456789")))
    sink = _TakesNothing()
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


def test_close_after_someone_else_removed_the_file_is_no_error(
    make_file: MakeFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FBD-CLOSE-6: the owned file vanishing between close's check and its unlink is no error."""
    blob = FileBackedData.move_from(str(make_file("blob.bin", b"data")))
    real_lstat = os.lstat

    def lstat_then_vanish(path: Any) -> os.stat_result:
        st = real_lstat(path)
        os.unlink(path)  # another process removes the file right after the check
        return st

    monkeypatch.setattr(file_backed.os, "lstat", lstat_then_vanish)
    blob.close()
    monkeypatch.undo()
    assert blob.closed
    assert not os.path.exists(blob.path)


def test_move_from_names_a_source_that_is_no_regular_file(tmp_path: Path) -> None:
    """FBD-INIT-5/FBD-MOVE-8 through move_from: the FIFO's own path is named."""
    os.mkfifo(tmp_path / "fifo")
    fifo = str(tmp_path / "fifo")
    assert _message(lambda: FileBackedData.move_from(fifo), ValueError) == (
        f"not a regular file: {fifo!r}"
    )


def _replace_then(
    monkeypatch: pytest.MonkeyPatch, after: Callable[[str, str], None]
) -> list[tuple[str, str]]:
    """Make move_from's first os.replace really rename, then run ``after``; record every call."""
    real_replace = os.replace
    calls: list[tuple[str, str]] = []

    def replace(src: Any, dst: Any) -> None:
        calls.append((str(src), str(dst)))
        real_replace(src, dst)
        if len(calls) == 1:
            after(str(src), str(dst))

    monkeypatch.setattr(file_backed.os, "replace", replace)
    return calls


def test_an_interruption_after_the_rename_puts_the_source_back(
    make_file: MakeFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FBD-MOVE-5: a KeyboardInterrupt landing after the rename renames the data back."""
    source = make_file("blob.bin", b"the user's weights")

    def interrupt(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    calls = _replace_then(monkeypatch, interrupt)
    with pytest.raises(KeyboardInterrupt):
        FileBackedData.move_from(str(source))
    monkeypatch.undo()
    assert source.read_bytes() == b"the user's weights"
    assert calls[1] == (calls[0][1], str(source))
    assert [p.name for p in source.parent.iterdir()] == ["blob.bin"]


def test_a_source_replaced_while_moved_is_refused_and_put_back(
    make_file: MakeFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FBD-MOVE-5: another file taking the placeholder's name right after the rename is named
    in a FileChangedError, and what sits there is renamed back to the source's name."""
    source = make_file("blob.bin", b"the user's weights")

    def swap(src: str, dst: str) -> None:
        other = Path(dst).with_name("other.bin")  # made while the moved file lives: another inode
        other.write_bytes(b"someone else's")
        os.rename(other, dst)

    calls = _replace_then(monkeypatch, swap)
    raised = _raised(FileChangedError, lambda: FileBackedData.move_from(str(source)))
    monkeypatch.undo()
    assert (raised.errno, raised.strerror, raised.filename) == (
        errno.ESTALE,
        "the source was replaced while it was being moved",
        str(source),
    )
    assert calls[1] == (calls[0][1], str(source))
    assert source.read_bytes() == b"someone else's"
    assert [p.name for p in source.parent.iterdir()] == ["blob.bin"]
