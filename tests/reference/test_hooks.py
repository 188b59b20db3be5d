"""Backend hooks: program copy before preprocess, the low-memory flag, weights blobs as files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, ClassVar

import pytest

import reference.hooks as hooks
from reference import DataEntry, FileBackedData, NamedDataStore
from reference.file_backed import CHUNK_SIZE
from reference.hooks import (
    AotiBackend,
    BackendDetails,
    CompileSpec,
    FileBackedAotiBackend,
    PreprocessResult,
    Submodule,
    Weights,
    WeightsBlobPath,
    is_low_memory_mode,
    lower_all_submodules_to_backend,
)

ON = (CompileSpec("low_memory_mode", b"ON"),)
OFF = (CompileSpec("low_memory_mode", b"OFF"),)


# --------------------------------------------------------------------------------------------
# copy_exported_program_for_preprocess and lowering


def test_default_copy_is_deep_and_shares_file_backed_data(make_file) -> None:
    with FileBackedData(make_file("w.bin", b"weights")) as blob:
        program = {"graph": [1, 2, {"nested": [3]}], "constants": {"w": blob}}
        copied = BackendDetails.copy_exported_program_for_preprocess(program, ON)
        copied["graph"][2]["nested"].append(4)
        copied["graph"].append(5)
        copied["constants"]["extra"] = b"x"
        assert program == {"graph": [1, 2, {"nested": [3]}], "constants": {"w": blob}}
        assert copied["constants"]["w"] is blob


def _recording_backend() -> tuple[type[BackendDetails], list[tuple]]:
    calls: list[tuple] = []

    class Recording(BackendDetails):
        @classmethod
        def copy_exported_program_for_preprocess(cls, edge_program, compile_specs):
            copied = super().copy_exported_program_for_preprocess(edge_program, compile_specs)
            calls.append(("copy", edge_program, tuple(compile_specs), copied))
            return copied

        @staticmethod
        def preprocess(edge_program, compile_specs):
            calls.append(("preprocess", edge_program, tuple(compile_specs)))
            edge_program["touched"] = True  # preprocess may change its program freely
            return PreprocessResult(processed_bytes=edge_program["name"].encode())

    return Recording, calls


def test_lowering_copies_each_submodule_once_with_its_own_specs() -> None:
    backend, calls = _recording_backend()
    programs = [{"name": n} for n in ("fwd0", "fwd1", "aux0")]
    specs = [(CompileSpec("k", b"0"),), (CompileSpec("k", b"1"), *ON), ()]
    submodules = {
        "forward": [Submodule(programs[0], specs[0]), Submodule(programs[1], specs[1])],
        "aux": [Submodule(programs[2], specs[2])],
    }
    results = lower_all_submodules_to_backend(backend, submodules)

    copies = [c for c in calls if c[0] == "copy"]
    preprocessed = [c for c in calls if c[0] == "preprocess"]
    assert [(c[1], c[2]) for c in copies] == list(zip(programs, specs, strict=True))
    assert all(c[1] is p for c, p in zip(copies, programs, strict=True))
    # preprocess receives exactly what the hook returned, with the same submodule's specs
    assert len(preprocessed) == 3
    assert all(p[1] is c[3] and p[2] == c[2] for p, c in zip(preprocessed, copies, strict=True))
    assert all("touched" not in p for p in programs)  # the originals were never handed over
    assert {m: [r.processed_bytes for r in rs] for m, rs in results.items()} == {
        "forward": [b"fwd0", b"fwd1"],
        "aux": [b"aux0"],
    }
    assert all(r.data_store_output is None for rs in results.values() for r in rs)


def test_a_sharing_copy_hook_is_honoured() -> None:
    received = []

    class Sharing(BackendDetails):
        @classmethod
        def copy_exported_program_for_preprocess(cls, edge_program, compile_specs):
            return edge_program

        @staticmethod
        def preprocess(edge_program, compile_specs):
            received.append(edge_program)
            return PreprocessResult()

    program = {"name": "p"}
    lower_all_submodules_to_backend(Sharing, {"m": [Submodule(program, ())]})
    assert received == [program] and received[0] is program


@pytest.mark.parametrize("counts", [(2, 1), (1, 2), (1, 0)])
def test_preprocess_multimethod_length_mismatch(counts: tuple[int, int]) -> None:
    backend, calls = _recording_backend()
    programs, specs = counts
    with pytest.raises(ValueError, match="'forward'"):
        backend.preprocess_multimethod(
            {"forward": [{"name": str(i)} for i in range(programs)]},
            {"forward": [()] * specs},
        )
    assert calls == []


# --------------------------------------------------------------------------------------------
# is_low_memory_mode


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], False),
        ([b"ON"], True),
        ([b"on"], True),
        ([b"On"], True),
        ([b"OFF"], False),
        ([b"off"], False),
        ([b"ON", b"on"], True),
        ([b"OFF", b"OFF"], False),
    ],
)
def test_low_memory_mode(values: list[bytes], expected: bool) -> None:
    specs = [CompileSpec("other", b"ON"), *(CompileSpec("low_memory_mode", v) for v in values)]
    assert is_low_memory_mode(specs) is expected
    assert is_low_memory_mode(iter(specs)) is expected  # any iterable, read once


@pytest.mark.parametrize("value", [b"maybe", b"1", b"", b"ONN"])
def test_low_memory_mode_invalid_value(value: bytes) -> None:
    with pytest.raises(ValueError, match="Invalid low_memory_mode") as caught:
        is_low_memory_mode([CompileSpec("low_memory_mode", value)])
    assert repr(value.decode().upper()) in str(caught.value)


@pytest.mark.parametrize("value", ["ON", None, 1, bytearray(b"ON")])
def test_low_memory_mode_value_not_bytes(value: object) -> None:
    with pytest.raises(ValueError, match="Invalid low_memory_mode") as caught:
        is_low_memory_mode([CompileSpec("low_memory_mode", value)])  # type: ignore[arg-type]
    assert repr(value) in str(caught.value)


@pytest.mark.parametrize("order", [(b"ON", b"OFF"), (b"off", b"on")])
def test_low_memory_mode_conflict(order: tuple[bytes, bytes]) -> None:
    with pytest.raises(ValueError, match="Conflicting"):
        is_low_memory_mode([CompileSpec("low_memory_mode", v) for v in order])


# --------------------------------------------------------------------------------------------
# AotiBackend defaults


def test_default_load_reads_hashes_and_removes(make_file) -> None:
    data = os.urandom(1000)
    path = make_file("m.wrapper_weights.blob", data)
    loaded, hexdigest = AotiBackend.load_weights_blob(str(path), ON)
    assert loaded == data and isinstance(loaded, bytes)
    assert hexdigest == hashlib.sha256(data).hexdigest()
    assert not path.exists()


def test_default_materialize_returns_its_argument() -> None:
    paths = ["/x/m.wrapper.so", Weights([b"w"])]
    assert AotiBackend.materialize_weights_blob(paths, ON) is paths
    assert FileBackedAotiBackend.materialize_weights_blob(paths, OFF) is paths
    assert FileBackedAotiBackend.materialize_weights_blob(paths, ()) is paths


@pytest.mark.parametrize("backend", [AotiBackend, FileBackedAotiBackend])
def test_store_weights_blob_inline_by_default(make_file, backend) -> None:
    data = b"weights" * 10
    path = make_file("m.wrapper_weights.blob", data)
    store = NamedDataStore()
    key = backend.store_weights_blob(str(path), OFF, store)
    assert key == hashlib.sha256(data).hexdigest() + "_weights_blob"
    assert store.pte_data == {key: DataEntry(0, 1, None)}
    assert store.buffers == [data] and store.external_data == {}
    assert not path.exists()


class _External(AotiBackend):
    @classmethod
    def save_data_externally(cls) -> bool:
        return True


class _ExternalCuda(_External):
    @classmethod
    def get_device_name(cls) -> str:
        return "cuda"


@pytest.mark.parametrize(
    ("backend", "tag"), [(_External, "aoti_cpu_blob"), (_ExternalCuda, "aoti_cuda_blob")]
)
def test_store_weights_blob_externally(make_file, backend, tag) -> None:
    data = b"external weights"
    store = NamedDataStore()
    key = backend.store_weights_blob(str(make_file("w.blob", data)), (), store)
    assert store.pte_data == {}
    assert list(store.external_data) == [tag]
    assert (
        list(store.external_data[tag])
        == [key]
        == [hashlib.sha256(data).hexdigest() + "_weights_blob"]
    )


def test_default_flags() -> None:
    assert AotiBackend.get_device_name() == "cpu"
    assert AotiBackend.save_data_externally() is False


# --------------------------------------------------------------------------------------------
# FileBackedAotiBackend: materialize


def test_materialize_streams_the_weights_next_to_the_wrapper(tmp_path: Path, monkeypatch) -> None:
    chunks = [os.urandom(2 * CHUNK_SIZE + 5), b"", os.urandom(100), os.urandom(CHUNK_SIZE)]
    sizes: list[int] = []
    real_write_all = hooks._write_all  # every piece goes to the temporary's descriptor through it

    def write_all(fd: int, piece: bytes) -> None:
        sizes.append(len(piece))
        real_write_all(fd, piece)

    monkeypatch.setattr(hooks, "_write_all", write_all)
    so = str(tmp_path / "m.wrapper.so")
    other = str(tmp_path / "m.json")
    result = FileBackedAotiBackend.materialize_weights_blob([so, Weights(iter(chunks)), other], ON)

    blob = str(tmp_path / "m.wrapper_weights.blob")  # splitext of the .so, as ExecuTorch does
    assert result[:2] == [so, other]
    assert len(result) == 3 and isinstance(result[2], WeightsBlobPath)
    assert result[2] == blob
    expected = b"".join(chunks)
    assert Path(blob).read_bytes() == expected
    assert result[2].sha256 == hashlib.sha256(expected).digest()
    assert max(sizes) <= CHUNK_SIZE and sum(sizes) == len(expected)


@pytest.mark.parametrize("paths", ["/x/m.wrapper.so", ("/x/m.wrapper.so", Weights([b"w"])), None])
def test_materialize_returns_non_lists_unchanged(paths) -> None:
    assert FileBackedAotiBackend.materialize_weights_blob(paths, ON) is paths


def test_materialize_returns_lists_without_weights_unchanged() -> None:
    paths = ["/x/m.wrapper.so", "/x/m.wrapper_weights.blob"]
    assert FileBackedAotiBackend.materialize_weights_blob(paths, ON) is paths


@pytest.mark.parametrize(
    "paths",
    [
        [Weights([b"w"])],
        ["/x/m.so", Weights([b"w"])],
        ["/x/a.wrapper.so", "/x/b.wrapper.so", Weights([b"w"])],
        ["/x/m.wrapper.so", Weights([b"w"]), Weights([b"v"])],
    ],
    ids=["no-so", "not-a-wrapper", "two-so", "two-weights"],
)
def test_materialize_needs_one_weights_and_one_wrapper(paths) -> None:
    with pytest.raises(ValueError, match=r"expected one Weights and one \.wrapper\.so"):
        FileBackedAotiBackend.materialize_weights_blob(paths, ON)
    assert not os.path.exists("/x")


# --------------------------------------------------------------------------------------------
# FileBackedAotiBackend: load


def _materialize(tmp_path: Path, data: bytes) -> WeightsBlobPath:
    so = str(tmp_path / "m.wrapper.so")
    result = FileBackedAotiBackend.materialize_weights_blob([so, Weights([data])], ON)
    return result[-1]


def test_load_off_behaves_like_the_default(tmp_path: Path) -> None:
    data = os.urandom(300)
    blob_path = _materialize(tmp_path, data)
    loaded, hexdigest = FileBackedAotiBackend.load_weights_blob(blob_path, OFF)
    assert loaded == data and isinstance(loaded, bytes)
    assert hexdigest == hashlib.sha256(data).hexdigest()
    assert not os.path.exists(blob_path)


def test_load_on_moves_the_file_without_rereading_it(
    tmp_path: Path, read_spy, placeholders
) -> None:
    data = os.urandom(CHUNK_SIZE + 123)
    blob_path = _materialize(tmp_path, data)
    before = os.stat(blob_path)
    loaded, hexdigest = FileBackedAotiBackend.load_weights_blob(blob_path, ON)
    with loaded:
        assert isinstance(loaded, FileBackedData) and loaded.owned
        assert hexdigest == hashlib.sha256(data).hexdigest()
        assert loaded.sha256() == hashlib.sha256(data).digest()
        assert read_spy.opened == []  # never reopened to hash it
        assert not os.path.exists(blob_path)
        assert os.path.dirname(loaded.path) == str(tmp_path)
        assert placeholders(tmp_path) == [os.path.basename(loaded.path)]
        after = os.stat(loaded.path)
        assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
        assert len(loaded) == len(data)
    assert placeholders(tmp_path) == []


def test_store_on_keeps_the_blob_file_backed(tmp_path: Path, read_spy) -> None:
    data = os.urandom(500)
    blob_path = _materialize(tmp_path, data)
    store = NamedDataStore()
    key = FileBackedAotiBackend.store_weights_blob(blob_path, ON, store)
    (buffer,) = store.buffers
    try:
        assert key == hashlib.sha256(data).hexdigest() + "_weights_blob"
        assert isinstance(buffer, FileBackedData) and buffer.owned
        assert read_spy.bytes_read == 32  # the store's fingerprint, nothing else
    finally:
        buffer.close()
    assert os.listdir(tmp_path) == []


def test_load_on_with_a_plain_path_hashes_by_reading(make_file, read_spy) -> None:
    data = os.urandom(2000)
    path = make_file("m.wrapper_weights.blob", data)
    loaded, hexdigest = FileBackedAotiBackend.load_weights_blob(str(path), ON)
    with loaded:
        assert hexdigest == hashlib.sha256(data).hexdigest()
        assert read_spy.opened == [loaded.path]
        assert read_spy.bytes_read == len(data)
        assert not path.exists()


def _rewrite_other_size(path: str) -> bytes:
    data = b"rewritten with other contents"
    Path(path).write_bytes(data)
    return data


def _replace_same_size(path: str) -> bytes:
    data = bytes(reversed(Path(path).read_bytes()))
    fresh = path + ".new"
    Path(fresh).write_bytes(data)
    os.replace(fresh, path)
    return data


def _rewrite_same_size_later(path: str) -> bytes:
    st = os.stat(path)
    data = bytes(reversed(Path(path).read_bytes()))
    Path(path).write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a second later
    return data


@pytest.mark.parametrize(
    "change", [_rewrite_other_size, _replace_same_size, _rewrite_same_size_later]
)
def test_load_on_does_not_trust_a_digest_for_a_changed_file(
    tmp_path: Path, read_spy, change
) -> None:
    blob_path = _materialize(tmp_path, os.urandom(4096))
    assert blob_path.digest_if_unchanged() == blob_path.sha256
    data = change(blob_path)
    assert blob_path.digest_if_unchanged() is None
    loaded, hexdigest = FileBackedAotiBackend.load_weights_blob(blob_path, ON)
    with loaded:
        assert hexdigest == hashlib.sha256(data).hexdigest()
        assert loaded.to_bytes() == data
        assert loaded.path in read_spy.opened


def test_load_on_of_a_vanished_blob(tmp_path: Path, placeholders) -> None:
    blob_path = _materialize(tmp_path, b"weights")
    os.unlink(blob_path)
    assert blob_path.digest_if_unchanged() is None
    with pytest.raises(FileNotFoundError):
        FileBackedAotiBackend.load_weights_blob(blob_path, ON)
    assert os.listdir(tmp_path) == []


def test_weights_blob_path_is_a_str(tmp_path: Path) -> None:
    blob_path = _materialize(tmp_path, b"abc")
    assert isinstance(blob_path, str)
    assert blob_path == str(tmp_path / "m.wrapper_weights.blob")
    assert blob_path.sha256 == hashlib.sha256(b"abc").digest()
    os.unlink(blob_path)


def test_public_constants() -> None:
    assert hooks.LOW_MEMORY_MODE == "low_memory_mode"
    assert hooks.WEIGHTS_BLOB_SUFFIX == "_weights_blob"


# --------------------------------------------------------------------------------------------
# The hooks' internals the spec leaves free: tags, returned path lists, unpaired specs (kill
# mutmut mutants: docs/mutation.md)


@pytest.mark.mutation
def test_default_store_keeps_the_blob_inline_with_alignment_one(make_file) -> None:
    store = NamedDataStore()
    key = AotiBackend.store_weights_blob(str(make_file("w.blob", b"weights")), OFF, store)
    out = store.get_named_data_store_output()
    assert (out.pte_data, out.external_data) == ({key: DataEntry(0, 1)}, {})
    assert AotiBackend.get_device_name() == "cpu"
    assert AotiBackend.save_data_externally() is False


class _Cuda(_ExternalCuda):
    seen: ClassVar[list[object]] = []

    @classmethod
    def load_weights_blob(cls, blob_path: str, compile_specs: Any) -> Any:
        cls.seen.append(compile_specs)
        return super().load_weights_blob(blob_path, compile_specs)


@pytest.mark.mutation
def test_a_backend_saving_externally_uses_its_device_tag(make_file) -> None:
    store = NamedDataStore()
    key = _Cuda.store_weights_blob(str(make_file("w.blob", b"weights")), OFF, store)
    out = store.get_named_data_store_output()
    assert (out.pte_data, out.external_data) == ({}, {"aoti_cuda_blob": {key: DataEntry(0, 1)}})
    assert _Cuda.seen == [OFF]


@pytest.mark.mutation
def test_low_memory_backend_off_keeps_the_default(make_file) -> None:
    path = make_file("w.blob", b"weights")
    data, digest = FileBackedAotiBackend.load_weights_blob(str(path), OFF)
    assert (data, len(digest), path.exists()) == (b"weights", 64, False)
    paths = ["model.wrapper.so", Weights([b"w"])]
    assert FileBackedAotiBackend.materialize_weights_blob(paths, OFF) is paths
    assert FileBackedAotiBackend.materialize_weights_blob("model.wrapper.so", ON) == (
        "model.wrapper.so"
    )


@pytest.mark.mutation
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


@pytest.mark.mutation
def test_preprocess_multimethod_refuses_unpaired_specs() -> None:
    with pytest.raises(ValueError) as raised:
        _Probe.preprocess_multimethod({"forward": [1, 2]}, {"forward": [()]})
    assert str(raised.value) == "method 'forward' has 2 programs but 1 compile-spec lists"
    results = _Probe.preprocess_multimethod({"forward": [1, 2]}, {"forward": [(), ()]})
    assert [r.processed_bytes for r in results["forward"]] == [b"1", b"2"]


# --------------------------------------------------------------------------------------------
# FileBackedAotiBackend: the blob created exclusively and renamed into place (HOOK-MAT-3)


def _materialize_in(directory: Path, chunks: Any) -> Any:
    so = str(directory / "m.wrapper.so")
    return FileBackedAotiBackend.materialize_weights_blob([so, Weights(chunks)], ON)


@pytest.mark.parametrize("plant", ["link", "dangling-link", "fifo", "directory"])
def test_a_name_that_is_not_a_regular_file_is_refused(tmp_path: Path, plant: str) -> None:
    blob = tmp_path / "m.wrapper_weights.blob"
    target = tmp_path / "target"
    if plant == "link":
        target.write_bytes(b"kept")
    if plant in ("link", "dangling-link"):
        blob.symlink_to(target)
    elif plant == "fifo":
        os.mkfifo(blob)
    else:
        blob.mkdir()
    with pytest.raises(FileExistsError, match="refusing to write the weights blob") as raised:
        _materialize_in(tmp_path, [b"weights"])
    assert raised.value.filename == str(blob)
    assert str(blob) in str(raised.value)
    assert os.path.lexists(blob)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {blob.name} | ({"target"} if plant == "link" else set())
    )
    if plant == "link":
        assert target.read_bytes() == b"kept"


def test_a_file_of_another_user_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    """Seen as another user's by an effective uid that is not the file's owner."""
    blob = tmp_path / "m.wrapper_weights.blob"
    blob.write_bytes(b"planted")
    monkeypatch.setattr(hooks.os, "geteuid", lambda: os.stat(blob).st_uid + 1)
    with pytest.raises(FileExistsError, match="a file of user"):
        _materialize_in(tmp_path, [b"weights"])
    assert blob.read_bytes() == b"planted"
    assert sorted(p.name for p in tmp_path.iterdir()) == [blob.name]


def test_an_earlier_blob_is_replaced_by_a_new_private_file(tmp_path: Path) -> None:
    blob = tmp_path / "m.wrapper_weights.blob"
    blob.write_bytes(b"an earlier blob")
    earlier = os.stat(blob).st_ino
    held = blob.open("rb")  # keeps the earlier inode alive: a new file cannot reuse its number
    try:
        result = _materialize_in(tmp_path, [b"new weights"])
        assert held.read() == b"an earlier blob"
    finally:
        held.close()
    st = os.stat(blob)
    assert st.st_ino != earlier and st.st_mode & 0o777 == 0o600
    assert blob.read_bytes() == b"new weights"
    assert result[-1].digest_if_unchanged() == hashlib.sha256(b"new weights").digest()
    assert sorted(p.name for p in tmp_path.iterdir()) == [blob.name]


@pytest.mark.parametrize("error", [OSError, KeyboardInterrupt])
def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path, error: type) -> None:
    def chunks() -> Any:
        yield b"first"
        raise error("the compiler failed")

    with pytest.raises(error):
        _materialize_in(tmp_path, chunks())
    assert list(tmp_path.iterdir()) == []


def test_the_stamp_is_of_the_file_written(tmp_path: Path, monkeypatch: Any) -> None:
    """A file put at the blob's name between the rename and the return is not the one hashed:
    the stamp comes from the descriptor written, so the digest is not handed on for it."""
    real_rename = hooks.rename_noreplace

    def rename_then_swap(old_dir: int, old: str, new_dir: int, new: str) -> None:
        real_rename(old_dir, old, new_dir, new)
        other = tmp_path / "other"
        other.write_bytes(b"swapped in by someone else")
        os.replace(other, tmp_path / new)

    monkeypatch.setattr(hooks, "rename_noreplace", rename_then_swap)
    result = _materialize_in(tmp_path, [b"genuine"])
    assert result[-1].digest_if_unchanged() is None


def test_a_refused_store_gives_the_blob_back(tmp_path: Path) -> None:
    """HOOK-LOW-5: the store refuses the blob (its key holds other bytes): the file taken over is
    back at the blob's path, unowned, and nothing else is left in the directory."""
    weights = b"hours of training " * 100
    blob = _materialize_in(tmp_path, [weights])[-1]
    store = NamedDataStore()
    key = hashlib.sha256(weights).hexdigest() + hooks.WEIGHTS_BLOB_SUFFIX
    store.add_named_data(key, b"other bytes", 1, None)
    with pytest.raises(ValueError):
        FileBackedAotiBackend.store_weights_blob(blob, ON, store)
    import gc

    gc.collect()
    assert Path(blob).read_bytes() == weights
    assert sorted(os.listdir(tmp_path)) == ["m.wrapper_weights.blob"]


def test_an_interrupted_load_puts_the_blob_back(tmp_path: Path, monkeypatch: Any) -> None:
    """HOOK-LOW-5: a failure after the take (here the digest) gives the file back to its path."""
    weights = b"weights " * 100
    blob = str(_materialize_in(tmp_path, [weights])[-1])  # a plain path: the digest is computed

    def failing(self: FileBackedData) -> bytes:
        raise KeyboardInterrupt

    monkeypatch.setattr(FileBackedData, "sha256", failing)
    with pytest.raises(KeyboardInterrupt):
        FileBackedAotiBackend.load_weights_blob(blob, ON)
    monkeypatch.undo()
    import gc

    gc.collect()
    assert Path(blob).read_bytes() == weights
    assert sorted(os.listdir(tmp_path)) == ["m.wrapper_weights.blob"]


def test_the_temporary_names_take_no_tempfile_lock(tmp_path: Path, monkeypatch: Any) -> None:
    """HOOK-MAT-5: no ``tempfile`` call (whose first name takes ``tempfile._once_lock``)."""
    import tempfile

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tempfile was used")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    monkeypatch.setattr(tempfile, "_get_candidate_names", refuse)
    result = _materialize_in(tmp_path, [b"w" * 10])
    assert Path(result[-1]).read_bytes() == b"w" * 10
