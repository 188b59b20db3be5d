"""FileBackedData: construction, reads, change detection, move_from, release, ownership."""

from __future__ import annotations

import copy
import errno
import gc
import hashlib
import io
import os
import pickle
import re
import stat
import tempfile
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import reference.file_backed as file_backed
import reference.ownership as ownership
from conformance.harness.in_place import after_first_read, aged, rewrite_in_place
from conformance.harness.sinks import ShortWriter
from conformance.suite.path_like import PathLikeOf
from reference import FileBackedData, FileChangedError
from reference.file_backed import CHUNK_SIZE

DATA = b"0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# --------------------------------------------------------------------------------------------
# Construction


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        (None, None),
        (3, 3),
        (b"/tmp/x", b"/tmp/x"),
        (["a"], ["a"]),
        (PathLikeOf(b"/tmp/x"), b"/tmp/x"),
    ],
)
@pytest.mark.parametrize("construct", [FileBackedData, FileBackedData.move_from])
def test_path_must_be_str_or_pathlike(bad: object, shown: object, construct: object) -> None:
    with pytest.raises(TypeError, match=re.escape(repr(shown))):
        construct(bad)  # type: ignore[operator]  # the wrong type is the point


@pytest.mark.parametrize("empty", ["", PathLikeOf("")])
@pytest.mark.parametrize("construct", [FileBackedData, FileBackedData.move_from])
def test_empty_path_is_rejected(empty: object, construct: object) -> None:
    with pytest.raises(ValueError, match="empty"):
        construct(empty)  # type: ignore[operator]  # the wrong type is the point


def test_pathlike_is_accepted(make_file) -> None:
    path = make_file("a.bin", DATA)
    with FileBackedData(PathLikeOf(str(path))) as via_protocol, FileBackedData(path) as via_path:  # type: ignore[arg-type]  # the wrong type is the point
        assert via_protocol.path == str(path) == via_path.path
        assert via_path.to_bytes() == DATA


@pytest.mark.parametrize("cleanup", [1, 0, "yes", None])
def test_cleanup_must_be_bool(make_file, cleanup: object) -> None:
    path = make_file("a.bin", DATA)
    with pytest.raises(TypeError, match="cleanup"):
        FileBackedData(path, cleanup=cleanup)  # type: ignore[arg-type]  # the wrong type is the point
    assert path.read_bytes() == DATA


@pytest.mark.parametrize(
    ("digest", "error"),
    [
        ("ab" * 16, TypeError),
        (bytearray(32), TypeError),
        (memoryview(bytes(32)), TypeError),
        (b"\x00" * 31, ValueError),
        (b"\x00" * 33, ValueError),
        (b"", ValueError),
    ],
)
@pytest.mark.parametrize("construct", ["init", "move_from"])
def test_sha256_must_be_32_bytes(
    make_file, placeholders, digest: object, error: type, construct: str
) -> None:
    path = make_file("a.bin", DATA)
    with pytest.raises(error, match="sha256"):
        if construct == "init":
            FileBackedData(path, sha256=digest)  # type: ignore[arg-type]  # the wrong type is the point
        else:
            FileBackedData.move_from(path, sha256=digest)  # type: ignore[arg-type]  # the wrong type is the point
    assert path.read_bytes() == DATA
    assert placeholders(path.parent) == []


@pytest.mark.parametrize("cleanup", [False, True])
def test_missing_file(tmp_path: Path, cleanup: bool) -> None:
    with pytest.raises(FileNotFoundError):
        FileBackedData(tmp_path / "missing", cleanup=cleanup)


@pytest.mark.parametrize("cleanup", [False, True])
def test_directory_is_rejected(tmp_path: Path, cleanup: bool) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(IsADirectoryError):
        FileBackedData(tmp_path / "d", cleanup=cleanup)
    assert (tmp_path / "d").is_dir()


@pytest.mark.parametrize("cleanup", [False, True])
def test_fifo_is_rejected(tmp_path: Path, cleanup: bool) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        FileBackedData(fifo, cleanup=cleanup)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_character_device_is_rejected() -> None:
    with pytest.raises(ValueError, match="/dev/null"):
        FileBackedData("/dev/null")


def test_borrowed_follows_symlinks(make_file, tmp_path: Path) -> None:
    target = make_file("target.bin", DATA)
    link = tmp_path / "link"
    link.symlink_to(target)
    with FileBackedData(link) as blob:
        assert len(blob) == len(DATA)
        assert blob.to_bytes() == DATA
        assert not blob.owned
    assert link.is_symlink() and target.read_bytes() == DATA


def test_borrowed_symlink_to_fifo_is_rejected(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to(tmp_path / "fifo")
    with pytest.raises(ValueError, match="not a regular file"):
        FileBackedData(tmp_path / "link")


def test_owned_path_must_not_be_a_symlink(make_file, tmp_path: Path) -> None:
    target = make_file("target.bin", DATA)
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(ValueError, match="not a regular file"):
        FileBackedData(link, cleanup=True)
    assert link.is_symlink() and target.read_bytes() == DATA


def test_size_is_recorded_at_construction(make_file) -> None:
    path = make_file("a.bin", DATA)
    with FileBackedData(path) as blob:
        assert len(blob) == os.stat(path).st_size == len(DATA)
        assert blob.path == str(path)


# --------------------------------------------------------------------------------------------
# Reads


@pytest.mark.parametrize("n", [0, 1, 5, 32, len(DATA), len(DATA) + 10, 10**12])
def test_prefix(make_file, n: int) -> None:
    with FileBackedData(make_file("a.bin", DATA)) as blob:
        assert blob.prefix(n) == DATA[:n]


@pytest.mark.parametrize("bad", [True, False, 1.0, None, "3"])
def test_prefix_rejects_non_int(make_file, bad: object) -> None:
    with (
        FileBackedData(make_file("a.bin", DATA)) as blob,
        pytest.raises(TypeError, match="size must be int"),
    ):
        blob.prefix(bad)  # type: ignore[arg-type]  # the wrong type is the point


def test_prefix_rejects_negative(make_file) -> None:
    with FileBackedData(make_file("a.bin", DATA)) as blob, pytest.raises(ValueError, match="-1"):
        blob.prefix(-1)


def test_prefix_reads_no_more_than_asked(make_file, read_spy) -> None:
    with FileBackedData(make_file("a.bin", DATA * 100)) as blob:
        assert blob.prefix(32) == DATA[:32]
    assert read_spy.bytes_read == 32


def test_prefix_is_whole_when_the_os_returns_less_per_call(make_file, read_spy) -> None:
    """Linux returns at most 2 GiB per read: a larger prefix takes several calls (FBD-READ-1)."""
    read_spy.cap = 7
    with FileBackedData(make_file("a.bin", DATA * 3)) as blob:
        assert blob.prefix(len(DATA) * 2) == (DATA * 3)[: len(DATA) * 2]
        assert blob.prefix(len(DATA) * 5) == DATA * 3
    assert read_spy.bytes_read == len(DATA) * 5


@pytest.mark.parametrize(
    "size", [0, 1, CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 1, 2 * CHUNK_SIZE + 12345]
)
def test_sha256_and_to_bytes(make_file, size: int) -> None:
    data = os.urandom(size)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert blob.sha256() == hashlib.sha256(data).digest()
        assert blob.to_bytes() == data


def test_sha256_reads_in_chunks_and_is_cached(make_file, read_spy) -> None:
    data = os.urandom(2 * CHUNK_SIZE + CHUNK_SIZE // 2)
    with FileBackedData(make_file("a.bin", data)) as blob:
        first = blob.sha256()
        assert len(read_spy.opened) == 1
        assert read_spy.bytes_read == len(data)
        assert max(read_spy.requests) <= CHUNK_SIZE
        assert sum(1 for r in read_spy.requests if r > 1) == 3  # three chunk reads, one EOF probe
        read_spy.reset()
        assert blob.sha256() == first == hashlib.sha256(data).digest()
        assert read_spy.opened == []


def test_supplied_digest_is_trusted_and_never_recomputed(make_file, read_spy) -> None:
    wrong = hashlib.sha256(b"something else").digest()
    with FileBackedData(make_file("a.bin", DATA), sha256=wrong) as blob:
        assert blob.sha256() == wrong
        assert blob.sha256() == wrong
        assert read_spy.opened == []
        assert blob.to_bytes() == DATA  # the data itself is still the file's


class NoneWriter:
    """A sink whose ``write`` returns None (taken to mean: everything written)."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.calls = 0

    def write(self, data: bytes | memoryview) -> None:
        self.calls += 1
        self.out += data


def test_write_to_bytesio(make_file) -> None:
    out = io.BytesIO(b"head:")
    out.seek(0, io.SEEK_END)
    with FileBackedData(make_file("a.bin", DATA)) as blob:
        blob.write_to_file(out)
    assert out.getvalue() == b"head:" + DATA


@pytest.mark.parametrize("buffering", [-1, 0])
def test_write_to_real_file(make_file, tmp_path: Path, buffering: int) -> None:
    data = os.urandom(CHUNK_SIZE + 17)
    with (
        FileBackedData(make_file("a.bin", data)) as blob,
        open(tmp_path / "out", "wb", buffering=buffering) as out,
    ):
        out.write(b"<")
        blob.write_to_file(out)
        out.write(b">")
    assert (tmp_path / "out").read_bytes() == b"<" + data + b">"


def test_write_to_short_writer_loops_until_everything_is_written(make_file) -> None:
    data = os.urandom(100)
    sink = ShortWriter(7)
    with FileBackedData(make_file("a.bin", data)) as blob:
        blob.write_to_file(sink)
    assert bytes(sink.received) == data
    assert sink.calls == 15  # ceil(100 / 7)


def test_write_to_short_writer_across_chunks(make_file) -> None:
    data = os.urandom(CHUNK_SIZE + 10)
    sink = ShortWriter(CHUNK_SIZE // 3 + 1)
    with FileBackedData(make_file("a.bin", data)) as blob:
        blob.write_to_file(sink)
    assert bytes(sink.received) == data
    assert sink.calls == 3 + 1


def test_write_to_writer_returning_none(make_file) -> None:
    data = os.urandom(2 * CHUNK_SIZE + 3)
    sink = NoneWriter()
    with FileBackedData(make_file("a.bin", data)) as blob:
        blob.write_to_file(sink)
    assert bytes(sink.out) == data
    assert sink.calls == 3


class HashingSink:
    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.size = 0
        self.largest = 0

    def write(self, data: memoryview) -> int:
        self.digest.update(data)
        self.size += len(data)
        self.largest = max(self.largest, len(data))
        return len(data)


def test_streaming_memory_is_bounded(make_sparse) -> None:
    size = 8 * CHUNK_SIZE
    path = make_sparse("big.bin", size)
    sink = HashingSink()
    with FileBackedData(path) as blob:
        tracemalloc.start()
        try:
            digest = blob.sha256()
            blob.write_to_file(sink)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 2 * CHUNK_SIZE + 256 * 1024, peak
    assert sink.size == size and sink.largest <= CHUNK_SIZE
    expected = hashlib.sha256()
    zeros = bytes(CHUNK_SIZE)
    for _ in range(8):
        expected.update(zeros)
    assert digest == expected.digest() == sink.digest.digest()


# --------------------------------------------------------------------------------------------
# Strict detection: the file is no longer what was wrapped


def _truncate(path: Path) -> int:
    os.truncate(path, 3)
    return 3


def _grow(path: Path) -> int:
    with open(path, "ab") as f:
        f.write(b"more")
    return len(DATA) + 4


def _replace(path: Path) -> None:
    fresh = path.with_name("fresh")
    fresh.write_bytes(DATA)  # same size and contents, but another inode
    os.replace(fresh, path)


READERS = {
    "sha256": lambda blob: blob.sha256(),
    "to_bytes": lambda blob: blob.to_bytes(),
    "write_to_file": lambda blob: blob.write_to_file(io.BytesIO()),
    "prefix": lambda blob: blob.prefix(4),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("change", [_truncate, _grow])
def test_size_change_after_construction(make_file, reader: str, change) -> None:
    path = make_file("a.bin", DATA)
    with FileBackedData(path) as blob:
        now = change(path)
        with pytest.raises(FileChangedError) as caught:
            READERS[reader](blob)
    assert isinstance(caught.value, OSError)
    assert caught.value.filename == str(path)
    message = str(caught.value)
    assert str(path) in message
    assert f"recorded {len(DATA)} bytes, now {now}" in message


@pytest.mark.parametrize("reader", READERS)
def test_replaced_file_is_detected(make_file, reader: str) -> None:
    path = make_file("a.bin", DATA)
    with FileBackedData(path) as blob:
        _replace(path)
        with pytest.raises(FileChangedError) as caught:
            READERS[reader](blob)
    assert str(path) in str(caught.value)


def test_file_changed_error_is_an_oserror() -> None:
    assert issubclass(FileChangedError, OSError)


class _MutatingSink:
    """Calls ``action`` once, after the first chunk it receives."""

    def __init__(self, action) -> None:
        self.action = action
        self.received = 0

    def write(self, data: memoryview) -> int:
        if self.received == 0:
            self.action()
        self.received += len(data)
        return len(data)


def test_shrink_during_streaming_is_caught(make_file) -> None:
    size = 3 * CHUNK_SIZE
    path = make_file("a.bin", os.urandom(size))
    sink = _MutatingSink(lambda: os.truncate(path, CHUNK_SIZE + 5))
    with FileBackedData(path) as blob, pytest.raises(FileChangedError) as caught:
        blob.write_to_file(sink)
    assert f"recorded {size} bytes, now {CHUNK_SIZE + 5}" in str(caught.value)
    assert sink.received == CHUNK_SIZE + 5


def test_growth_during_streaming_is_caught(make_file) -> None:
    size = 2 * CHUNK_SIZE
    path = make_file("a.bin", os.urandom(size))

    def grow() -> None:
        with open(path, "ab") as f:
            f.write(b"tail")

    sink = _MutatingSink(grow)
    with FileBackedData(path) as blob, pytest.raises(FileChangedError) as caught:
        blob.write_to_file(sink)
    assert f"recorded {size} bytes, now {size + 4}" in str(caught.value)
    assert sink.received == size


@pytest.mark.parametrize("reset_mtime", [False, True])
def test_rewrite_in_place_during_streaming_is_caught(make_file, reset_mtime: bool) -> None:
    """FBD-CHANGE-1: truncated and regrown to its size after the first chunk, the file's stamps
    (st_mtime_ns, or st_ctime_ns alone when the writer set the mtime back) show it."""
    path = make_file("a.bin", b"\xa5" * (3 * CHUNK_SIZE))
    aged(path)
    sink = _MutatingSink(lambda: rewrite_in_place(path, reset_mtime))
    with FileBackedData(path) as blob, pytest.raises(FileChangedError) as caught:
        blob.write_to_file(sink)
    assert caught.value.filename == str(path)
    assert "the file was modified while it was read" in str(caught.value)
    assert sink.received == 3 * CHUNK_SIZE


@pytest.mark.parametrize("reset_mtime", [False, True])
def test_rewrite_in_place_during_prefix_is_caught(make_file, reset_mtime: bool) -> None:
    """FBD-CHANGE-1: prefix checks the file's stamps after its one read."""
    path = make_file("a.bin", DATA)
    aged(path)
    with FileBackedData(path) as blob:
        with (
            after_first_read(lambda: rewrite_in_place(path, reset_mtime)) as ran,
            pytest.raises(FileChangedError, match="modified while it was read"),
        ):
            blob.prefix(len(DATA))
        assert ran()


def test_empty_file_that_grew_is_caught(make_file) -> None:
    path = make_file("empty.bin", b"")
    with FileBackedData(path) as blob:
        assert blob.to_bytes() == b""
        path.write_bytes(b"x")
        with pytest.raises(FileChangedError):
            blob.to_bytes()


# --------------------------------------------------------------------------------------------
# move_from


def test_move_from_renames_in_place_keeping_inode_and_mode(make_file, placeholders) -> None:
    source = make_file("weights.blob", DATA)
    os.chmod(source, 0o640)
    before = os.stat(source)
    with FileBackedData.move_from(source) as blob:
        assert not source.exists()
        assert os.path.dirname(blob.path) == str(source.parent)
        name = os.path.basename(blob.path)
        assert re.fullmatch(rf"\.executorch_{os.getpid()}-[0-9]+_[^/]+\.data", name), name
        assert placeholders(source.parent) == [name]
        after = os.stat(blob.path)
        assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
        assert stat.S_IMODE(after.st_mode) == 0o640
        assert blob.owned and not blob.closed
        assert len(blob) == len(DATA)
        assert blob.to_bytes() == DATA
    assert os.listdir(source.parent) == []


def test_move_from_accepts_pathlike(make_file) -> None:
    source = make_file("a.bin", DATA)
    with FileBackedData.move_from(PathLikeOf(str(source))) as blob:  # type: ignore[arg-type]  # the wrong type is the point
        assert os.path.dirname(blob.path) == str(source.parent)


def test_move_from_relative_path_stays_in_source_directory(
    make_file, tmp_path, monkeypatch, placeholders
) -> None:
    make_file("x.bin", DATA)
    monkeypatch.chdir(tmp_path)
    with FileBackedData.move_from("x.bin") as blob:
        assert os.path.samefile(os.path.dirname(os.path.abspath(blob.path)), tmp_path)
        assert len(placeholders(tmp_path)) == 1
        assert not (tmp_path / "x.bin").exists()
        assert blob.to_bytes() == DATA
    assert os.listdir(tmp_path) == []


def test_move_from_relative_path_in_subdirectory(
    make_file, tmp_path, monkeypatch, placeholders
) -> None:
    make_file("x.bin", DATA, directory=tmp_path / "sub")
    monkeypatch.chdir(tmp_path)
    with FileBackedData.move_from(os.path.join("sub", "x.bin")) as blob:
        assert len(placeholders(tmp_path / "sub")) == 1
        assert placeholders(tmp_path) == []
        assert blob.to_bytes() == DATA


def test_move_from_makes_its_placeholder_in_the_source_directory(make_file, monkeypatch) -> None:
    source = make_file("a.bin", DATA)
    calls = []
    real = file_backed.make_placeholder

    def spy(prefix: str, suffix: str, directory: str | None) -> tuple[int, str]:
        calls.append((prefix, suffix, directory))
        return real(prefix, suffix, directory)

    monkeypatch.setattr(file_backed, "make_placeholder", spy)
    source_ino = source.stat().st_ino
    with FileBackedData.move_from(source) as blob:
        assert re.fullmatch(rf"\.executorch_{os.getpid()}-[0-9]+_[a-z0-9_]{{8}}\.data",
                            os.path.basename(blob.path))  # fmt: skip
        assert os.stat(blob.path).st_ino == source_ino
    prefix, suffix, directory = calls.pop()
    assert (directory, suffix, calls) == (str(source.parent), ".data", [])
    assert re.fullmatch(rf"\.executorch_{os.getpid()}-[0-9]+_", prefix)


def test_move_from_never_reads_the_file(make_file, read_spy) -> None:
    source = make_file("a.bin", DATA)
    digest = hashlib.sha256(DATA).digest()
    with FileBackedData.move_from(source, sha256=digest) as blob:
        assert blob.sha256() == digest
        assert len(blob) == len(DATA)
        assert read_spy.opened == []
    with FileBackedData.move_from(make_file("b.bin", DATA)) as other:
        assert read_spy.opened == []  # no digest given: still nothing read until asked
        assert other.sha256() == digest
        assert len(read_spy.opened) == 1


def test_move_from_missing_source(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        FileBackedData.move_from(tmp_path / "missing")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("spelling", ["dir", "dir/", "file/"])
def test_move_from_directory_or_trailing_slash(make_file, tmp_path: Path, spelling: str) -> None:
    (tmp_path / "dir").mkdir()
    make_file("file", DATA)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(OSError) as caught:
        FileBackedData.move_from(f"{tmp_path}/{spelling}")
    assert isinstance(caught.value, (IsADirectoryError, NotADirectoryError))
    assert sorted(os.listdir(tmp_path)) == before
    assert os.listdir(tmp_path / "dir") == []
    assert (tmp_path / "file").read_bytes() == DATA


@pytest.mark.parametrize("dangling", [False, True])
def test_move_from_symlink_is_refused(
    make_file, tmp_path: Path, dangling: bool, placeholders
) -> None:
    target = tmp_path / "target.bin"
    if not dangling:
        make_file("target.bin", DATA)
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(ValueError, match="not a regular file"):
        FileBackedData.move_from(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert placeholders(tmp_path) == []
    if not dangling:
        assert target.read_bytes() == DATA


def test_move_from_fifo_is_refused(tmp_path: Path, placeholders) -> None:
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ValueError, match="not a regular file"):
        FileBackedData.move_from(tmp_path / "fifo")
    assert sorted(os.listdir(tmp_path)) == ["fifo"]


def test_move_from_refuses_a_file_owned_by_a_live_object(make_file, placeholders) -> None:
    source = make_file("a.bin", DATA)
    with FileBackedData.move_from(source) as owner:
        with pytest.raises(ValueError, match="owned"):
            FileBackedData.move_from(owner.path)
        os.link(owner.path, source.parent / "hardlink")  # another name, the same inode
        with pytest.raises(ValueError, match="owned"):
            FileBackedData.move_from(source.parent / "hardlink")
        assert os.path.exists(owner.path)
        assert owner.to_bytes() == DATA
        assert len(placeholders(source.parent)) == 1
        os.unlink(source.parent / "hardlink")
    assert os.listdir(source.parent) == []


def test_move_from_takes_over_a_file_whose_owner_closed(make_file) -> None:
    source = make_file("a.bin", DATA)
    owner = FileBackedData(source, cleanup=True)
    keep = source.parent / "keep"
    os.link(source, keep)  # keeps the inode alive after the owner deletes its name
    owner.close()
    with FileBackedData.move_from(keep) as blob:
        assert blob.to_bytes() == DATA


@pytest.mark.parametrize("failure", [OSError(errno.EIO, "injected"), KeyboardInterrupt()])
def test_move_from_failed_rename_removes_placeholder(
    make_file, monkeypatch, failure, placeholders
) -> None:
    source = make_file("a.bin", DATA)

    def failing_replace(src, dst):
        assert os.path.exists(dst)  # the placeholder exists while the rename is attempted
        raise failure

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(type(failure)):
        FileBackedData.move_from(source)
    monkeypatch.undo()
    assert source.read_bytes() == DATA
    assert os.listdir(source.parent) == ["a.bin"]


def test_move_from_detects_a_source_swapped_before_the_rename(
    make_file, monkeypatch, placeholders
) -> None:
    source = make_file("a.bin", DATA)
    real_replace = os.replace
    calls = []

    def racing_replace(src, dst):
        if not calls:  # someone replaces the source between the lstat and the rename
            intruder = source.with_name("intruder")
            intruder.write_bytes(b"intruder")
            real_replace(intruder, source)
        calls.append((os.fspath(src), os.fspath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", racing_replace)
    with pytest.raises(FileChangedError) as caught:
        FileBackedData.move_from(source)
    monkeypatch.undo()
    assert caught.value.filename == str(source)
    assert len(calls) == 1  # the put-back never replaces (FBD-MOVE-11): it is no os.replace
    assert source.read_bytes() == b"intruder"
    assert os.listdir(source.parent) == ["a.bin"]


def _interrupt_at_the_placeholder_check(monkeypatch) -> None:
    real_lstat = os.lstat

    def interrupted_lstat(path, *args, **kwargs):
        if os.path.basename(path).startswith(".executorch_"):
            raise KeyboardInterrupt
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", interrupted_lstat)


def _interrupt_just_after_the_rename(monkeypatch) -> None:
    real_replace = os.replace

    def rename_then_interrupt(src, dst):
        real_replace(src, dst)
        monkeypatch.setattr(os, "replace", real_replace)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", rename_then_interrupt)


@pytest.mark.parametrize(
    "interrupt",
    [_interrupt_at_the_placeholder_check, _interrupt_just_after_the_rename],
    ids=["at-the-placeholder-check", "just-after-the-rename"],
)
def test_move_from_puts_the_source_back_on_an_interrupt_after_the_rename(
    make_file, monkeypatch, interrupt
) -> None:
    source = make_file("a.bin", DATA)
    inode = os.stat(source).st_ino
    interrupt(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        FileBackedData.move_from(source)
    monkeypatch.undo()
    assert os.stat(source).st_ino == inode and source.read_bytes() == DATA
    assert os.listdir(source.parent) == ["a.bin"]


# --------------------------------------------------------------------------------------------
# pyfakefs: other mounts and a full disk (every object is closed inside the test)


def test_fake_mounts_move_stays_on_the_source_filesystem(fs) -> None:
    fs.add_mount_point("/mnt/a")
    fs.add_mount_point("/mnt/b")
    fs.create_file("/mnt/b/x", contents=DATA)
    fs.create_file("/mnt/b/probe", contents=b"p")
    source_dev = os.stat("/mnt/b/x").st_dev
    assert len({source_dev, os.stat("/mnt/a").st_dev, os.stat(tempfile.gettempdir()).st_dev}) == 3
    # The hazard is real here: a rename to another mount fails with EXDEV.
    with pytest.raises(OSError) as caught:
        os.replace("/mnt/b/probe", os.path.join(tempfile.gettempdir(), "probe"))
    assert caught.value.errno == errno.EXDEV
    blob = FileBackedData.move_from("/mnt/b/x")
    try:
        assert os.path.dirname(blob.path) == "/mnt/b"
        assert os.stat(blob.path).st_dev == source_dev
        assert not os.path.exists("/mnt/b/x")
        assert blob.to_bytes() == DATA
    finally:
        blob.close()
    assert sorted(os.listdir("/mnt/b")) == ["probe"]


def test_fake_mounts_placeholder_elsewhere_would_fail_with_exdev(fs, monkeypatch) -> None:
    """What move_from avoids: a placeholder in the temp dir makes the rename cross filesystems."""
    fs.add_mount_point("/mnt/b")
    fs.create_file("/mnt/b/x", contents=DATA)
    tmp = tempfile.gettempdir()
    monkeypatch.setattr(FileBackedData, "_placeholder_dir", staticmethod(lambda source: tmp))
    with pytest.raises(OSError) as caught:
        FileBackedData.move_from("/mnt/b/x")
    assert caught.value.errno == errno.EXDEV
    with open("/mnt/b/x", "rb") as f:
        assert f.read() == DATA
    assert [n for n in os.listdir(tmp) if n.startswith(".executorch_")] == []


def test_fake_full_disk_write_raises(fs) -> None:
    data = b"z" * 5000
    fs.create_file("/data/blob", contents=data)
    fs.set_disk_usage(len(data) + 1000)
    blob = FileBackedData("/data/blob")
    try:
        for buffering in (-1, 0):
            out_path = f"/data/out{buffering}"
            with pytest.raises(OSError) as caught, open(out_path, "wb", buffering=buffering) as out:
                blob.write_to_file(out)
            assert caught.value.errno == errno.ENOSPC
            assert os.path.getsize(out_path) < len(data)
    finally:
        blob.close()


# --------------------------------------------------------------------------------------------
# close, context manager, GC, fork


def test_close_deletes_owned_file_and_is_idempotent(make_file) -> None:
    source = make_file("a.bin", DATA)
    blob = FileBackedData.move_from(source)
    path = blob.path
    blob.close()
    assert blob.closed
    assert not os.path.exists(path)
    blob.close()
    assert blob.closed
    assert os.listdir(source.parent) == []


CLOSED_CALLS = {
    "len": lambda blob: len(blob),
    "prefix": lambda blob: blob.prefix(1),
    "sha256": lambda blob: blob.sha256(),
    "to_bytes": lambda blob: blob.to_bytes(),
    "write_to_file": lambda blob: blob.write_to_file(io.BytesIO()),
}


@pytest.mark.parametrize("call", CLOSED_CALLS)
@pytest.mark.parametrize("cleanup", [True, False])
def test_every_method_fails_after_close(make_file, read_spy, call: str, cleanup: bool) -> None:
    path = make_file("a.bin", DATA)
    blob = FileBackedData(path, cleanup=cleanup)
    assert blob.sha256() == hashlib.sha256(DATA).digest()  # cached before close
    blob.close()
    assert path.exists() != cleanup
    path.write_bytes(DATA)  # a new file at the same path must not be read as the old data
    read_spy.reset()
    with pytest.raises(ValueError, match=re.escape(repr(str(path)))):
        CLOSED_CALLS[call](blob)
    assert read_spy.opened == []
    assert path.read_bytes() == DATA


def test_borrowed_file_is_never_deleted(make_file) -> None:
    path = make_file("a.bin", DATA)
    blob = FileBackedData(path)
    blob.close()
    with FileBackedData(path):
        pass
    blob = FileBackedData(path)
    del blob
    gc.collect()
    assert path.read_bytes() == DATA


def test_failed_close_raises_and_can_be_retried(make_file, monkeypatch) -> None:
    blob = FileBackedData.move_from(make_file("a.bin", DATA))

    def refuse(path, *args, **kwargs):
        raise PermissionError(errno.EACCES, "injected", path)

    monkeypatch.setattr(os, "unlink", refuse)
    with pytest.raises(PermissionError):
        blob.close()
    monkeypatch.undo()
    assert not blob.closed and blob.owned
    assert os.path.exists(blob.path)
    assert blob.to_bytes() == DATA
    blob.close()
    assert blob.closed and not os.path.exists(blob.path)


def test_close_leaves_a_replacing_file_alone(make_file) -> None:
    path = make_file("a.bin", DATA)
    blob = FileBackedData(path, cleanup=True)
    _replace(path)
    blob.close()
    assert blob.closed
    assert path.read_bytes() == DATA  # the new inode at the owned path survives


def test_close_of_a_file_already_gone(make_file) -> None:
    blob = FileBackedData.move_from(make_file("a.bin", DATA))
    os.unlink(blob.path)
    blob.close()
    assert blob.closed


def test_context_manager_removes_on_success_and_on_exception(make_file) -> None:
    with FileBackedData.move_from(make_file("a.bin", DATA)) as blob:
        first = blob.path
        assert blob.__enter__() is blob
    assert not os.path.exists(first) and blob.closed
    with (
        pytest.raises(RuntimeError, match="boom"),
        FileBackedData.move_from(make_file("b.bin", DATA)) as other,
    ):
        second = other.path
        raise RuntimeError("boom")
    assert not os.path.exists(second) and other.closed


def test_garbage_collection_removes_owned_file(make_file) -> None:
    source = make_file("a.bin", DATA)
    blob = FileBackedData.move_from(source)
    path = blob.path
    del blob
    gc.collect()
    assert not os.path.exists(path)
    assert os.listdir(source.parent) == []


def test_garbage_collection_leaves_a_replacing_file_alone(make_file) -> None:
    path = make_file("a.bin", DATA)
    blob = FileBackedData(path, cleanup=True)
    _replace(path)
    del blob
    gc.collect()
    assert path.read_bytes() == DATA


def test_garbage_collection_removal_failure_warns(make_file, monkeypatch) -> None:
    blob = FileBackedData.move_from(make_file("a.bin", DATA))
    path = blob.path

    def refuse(p, *args, **kwargs):
        raise PermissionError(errno.EACCES, "injected", p)

    monkeypatch.setattr(os, "unlink", refuse)
    with pytest.warns(RuntimeWarning, match=re.escape(repr(path))):
        del blob
        gc.collect()
    monkeypatch.undo()
    assert os.path.exists(path)
    os.unlink(path)


def test_other_process_close_and_gc_never_delete(make_file, monkeypatch) -> None:
    """The pid check (what a forked child sees), exercised in-process by faking the pid."""
    first = FileBackedData.move_from(make_file("a.bin", DATA))
    second = FileBackedData.move_from(make_file("b.bin", DATA))
    paths = first.path, second.path
    real_pid = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: real_pid + 1)
    first.close()
    assert first.closed
    del second
    gc.collect()
    monkeypatch.undo()
    assert all(os.path.exists(p) for p in paths)
    for p in paths:
        os.unlink(p)


# The child only makes system calls and exits with os._exit, so fork under xdist's threads is safe.
_FORK_OK = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")


def _in_child(action) -> bytes:
    """Fork, run ``action`` in the child and return what it wrote to the pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, then leave without any cleanup
        code = 1
        try:
            os.close(read_end)
            os.write(write_end, action())
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        report = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return report


@_FORK_OK
def test_close_in_forked_child_keeps_parent_file(make_file) -> None:
    blob = FileBackedData.move_from(make_file("a.bin", DATA))

    def child() -> bytes:
        blob.close()
        return f"{blob.closed} {os.path.exists(blob.path)}".encode()

    assert _in_child(child) == b"True True"
    assert not blob.closed
    assert blob.to_bytes() == DATA
    blob.close()
    assert not os.path.exists(blob.path)


@_FORK_OK
def test_gc_in_forked_child_keeps_parent_file(make_file) -> None:
    holder = [FileBackedData.move_from(make_file("a.bin", DATA))]
    path = holder[0].path

    def child() -> bytes:
        holder.clear()
        gc.collect()
        return str(os.path.exists(path)).encode()

    assert _in_child(child) == b"True"
    assert os.path.exists(path)
    holder[0].close()
    assert not os.path.exists(path)


# --------------------------------------------------------------------------------------------
# Ownership, copies, repr


def test_second_owner_is_refused_until_the_first_closes(make_file) -> None:
    path = make_file("a.bin", DATA)
    first = FileBackedData(path, cleanup=True)
    with pytest.raises(ValueError, match="already owned"):
        FileBackedData(path, cleanup=True)
    os.link(path, path.with_name("hardlink"))
    with pytest.raises(ValueError, match="already owned"):
        FileBackedData(path.with_name("hardlink"), cleanup=True)
    with FileBackedData(path) as borrower:  # borrowing is always allowed
        assert borrower.to_bytes() == DATA
    assert first.to_bytes() == DATA
    first.close()
    assert not path.exists()
    with FileBackedData(path.with_name("hardlink"), cleanup=True) as second:
        assert second.owned and second.to_bytes() == DATA
    assert os.listdir(path.parent) == []


def test_owner_dropped_without_close_frees_the_file_for_a_new_owner(make_file) -> None:
    path = make_file("a.bin", DATA)
    keep = path.with_name("keep")
    os.link(path, keep)
    first = FileBackedData(path, cleanup=True)
    del first
    gc.collect()
    with FileBackedData(keep, cleanup=True) as second:
        assert second.to_bytes() == DATA


def test_copies_are_the_same_object(make_file) -> None:
    with FileBackedData.move_from(make_file("a.bin", DATA)) as blob:
        assert copy.copy(blob) is blob
        assert copy.deepcopy(blob) is blob
        nested = copy.deepcopy({"k": [blob]})
        assert nested["k"][0] is blob


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_is_refused(make_file, protocol: int) -> None:
    with FileBackedData.move_from(make_file("a.bin", DATA)) as blob:
        with pytest.raises(TypeError, match=re.escape(blob.path)):
            pickle.dumps(blob, protocol=protocol)
        assert os.path.exists(blob.path)


def test_repr_and_properties(make_file) -> None:
    path = make_file("a.bin", DATA)
    borrowed = FileBackedData(path)
    assert repr(borrowed) == f"FileBackedData({str(path)!r}, size={len(DATA)}, borrowed)"
    assert not borrowed.owned and not borrowed.closed
    borrowed.close()
    assert repr(borrowed).endswith("closed)")
    owner = FileBackedData.move_from(path)
    assert repr(owner) == f"FileBackedData({owner.path!r}, size={len(DATA)}, owned)"
    assert owner.owned and owner.path != str(path)
    owner.close()
    assert repr(owner) == f"FileBackedData({owner.path!r}, size={len(DATA)}, closed)"


def test_module_constants() -> None:
    assert file_backed.CHUNK_SIZE == 1 << 20
    assert file_backed.PLACEHOLDER_PREFIX == ".executorch_"
    assert file_backed.PLACEHOLDER_SUFFIX == ".data"


# --------------------------------------------------------------------------------------------
# What the spec leaves to the implementation: repr, release bookkeeping, move_from's rename
# back (kill mutmut mutants: docs/mutation.md)


@pytest.mark.mutation
def test_repr_tells_borrowed_owned_and_closed(make_file) -> None:
    path = str(make_file("blob.bin", b"0123456789"))
    borrowed = FileBackedData(path)
    assert repr(borrowed) == f"FileBackedData({path!r}, size=10, borrowed)"
    assert borrowed.owned is False  # a bool, as its annotation says
    owned = FileBackedData.move_from(path)
    assert repr(owned) == f"FileBackedData({owned.path!r}, size=10, owned)"
    assert owned.owned is True
    owned.close()
    assert repr(owned) == f"FileBackedData({owned.path!r}, size=10, closed)"


@pytest.mark.mutation
def test_release_at_collection_forgets_the_owner(make_file) -> None:
    blob = FileBackedData.move_from(str(make_file("blob.bin", b"data")))
    identity = blob._identity
    assert identity in ownership._owners
    del blob
    gc.collect()
    assert identity not in ownership._owners


@pytest.mark.mutation
def test_a_failed_release_warns_from_the_reference(
    make_file, monkeypatch: pytest.MonkeyPatch
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
        assert Path(warning.filename).name == "ownership.py"
        assert str(warning.message) == (
            f"could not remove {path!r}: [Errno 13] Permission denied: {path!r}"
        )
        assert identity not in ownership._owners
    finally:
        os.unlink(path)


@pytest.mark.mutation
def test_a_placeholder_gone_after_a_failed_rename_is_no_error(
    make_file, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = make_file("blob.bin", b"data")

    def replace_fails_and_loses_the_placeholder(src: Any, dst: Any) -> None:
        os.unlink(dst)
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "replace", replace_fails_and_loses_the_placeholder)
    with pytest.raises(OSError) as caught:
        FileBackedData.move_from(str(source))
    raised = caught.value
    assert raised.errno == errno.EXDEV
    assert source.read_bytes() == b"data"
    assert sorted(os.listdir(tmp_path)) == ["blob.bin"]


@pytest.mark.mutation
def test_close_after_someone_else_removed_the_file_is_no_error(
    make_file, monkeypatch: pytest.MonkeyPatch
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


@pytest.mark.mutation
def test_an_interruption_after_the_rename_puts_the_source_back(
    make_file, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FBD-MOVE-5: a KeyboardInterrupt landing after the rename renames the data back."""
    source = make_file("blob.bin", b"the user's weights")

    def interrupt(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    inode = source.stat().st_ino
    calls = _replace_then(monkeypatch, interrupt)
    with pytest.raises(KeyboardInterrupt):
        FileBackedData.move_from(str(source))
    monkeypatch.undo()
    assert source.read_bytes() == b"the user's weights"
    assert source.stat().st_ino == inode  # renamed back, never copied
    assert len(calls) == 1  # and never by a replacing rename (FBD-MOVE-11)
    assert [p.name for p in source.parent.iterdir()] == ["blob.bin"]


@pytest.mark.mutation
def test_a_source_replaced_while_moved_is_refused_and_put_back(
    make_file, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FBD-MOVE-5: another file taking the placeholder's name right after the rename is named
    in a FileChangedError, and what sits there is renamed back to the source's name."""
    source = make_file("blob.bin", b"the user's weights")

    def swap(src: str, dst: str) -> None:
        other = Path(dst).with_name("other.bin")  # made while the moved file lives: another inode
        other.write_bytes(b"someone else's")
        os.rename(other, dst)

    calls = _replace_then(monkeypatch, swap)
    with pytest.raises(FileChangedError) as caught:
        FileBackedData.move_from(str(source))
    raised = caught.value
    monkeypatch.undo()
    assert (raised.errno, raised.strerror, raised.filename) == (
        errno.ESTALE,
        "the source was replaced while it was being moved",
        str(source),
    )
    assert len(calls) == 1  # put back by a rename that never replaces (FBD-MOVE-11)
    assert source.read_bytes() == b"someone else's"
    assert [p.name for p in source.parent.iterdir()] == ["blob.bin"]
