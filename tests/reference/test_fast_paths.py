"""The reference's fast paths: in-kernel copies and their fallbacks, direct reads into ``BytesIO``,
hashing in one thread through one reused buffer, and dedup by identity. Each must give exactly what
the plain chunked path gives, including its errors."""

from __future__ import annotations

import errno
import hashlib
import io
import os
import stat
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import reference.file_backed as file_backed
import reference.named_data as named_data
import reference.placeholders as placeholders
from reference import Cord, DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput
from reference.file_backed import CHUNK_SIZE, FileChangedError
from reference.verified_reader import SMALL_PIECE

pytestmark = pytest.mark.mutation  # the mutation run includes every test here

LARGE = 4 * CHUNK_SIZE
MiB = 1 << 20

_real_copy_file_range = os.copy_file_range
_real_sendfile = os.sendfile
_real_fstat = os.fstat
_real_sha256 = hashlib.sha256


class Calls:
    """Wraps a function of ``os``, recording the count asked of each call and what it returned."""

    def __init__(self, real: Callable[..., int]) -> None:
        self.real = real
        self.results: list[int] = []

    def __call__(self, *args: Any) -> int:
        n = self.real(*args)
        self.results.append(n)
        return n


def failing(code: int) -> Callable[..., int]:
    def fail(*args: Any) -> int:
        raise OSError(code, os.strerror(code))

    return fail


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Calls]]:
    """Spies on ``os.copy_file_range`` and ``os.sendfile``."""
    spies = {"copy_file_range": Calls(_real_copy_file_range), "sendfile": Calls(_real_sendfile)}
    for name, spy in spies.items():
        monkeypatch.setattr(os, name, spy)
    yield spies


def write(blob: FileBackedData, path: Path, mode: str = "wb", buffering: int = -1) -> bytes:
    with open(path, mode, buffering=buffering) as out:
        out.write(b"<")
        blob.write_to_file(out)
        assert out.tell() == 1 + len(blob) or "a" in mode
        out.write(b">")
    return path.read_bytes()


def race_after_check(monkeypatch: pytest.MonkeyPatch, path: Path, change: Callable[[], object]):
    """Change the file right after the reader has checked its size: a change while reading (the
    reader's first ``fstat`` of a regular file; the one before is of the file's directory)."""

    def fstat_then_change(fd: int) -> os.stat_result:
        st = _real_fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return st
        monkeypatch.setattr(os, "fstat", _real_fstat)
        change()
        return st

    monkeypatch.setattr(os, "fstat", fstat_then_change)


def grow(path: Path) -> Callable[[], None]:
    def append() -> None:
        with open(path, "ab") as f:
            f.write(b"tail")

    return append


# --------------------------------------------------------------------------------------------
# Into a file from open(): copy_file_range, then sendfile, then chunks through write


@pytest.mark.parametrize("buffering", [-1, 0])
def test_copy_file_range_copies_in_the_kernel(make_file, tmp_path, kernel, buffering) -> None:
    data = os.urandom(3 * CHUNK_SIZE + 5)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out", buffering=buffering) == b"<" + data + b">"
    assert sum(kernel["copy_file_range"].results) == len(data)
    assert kernel["sendfile"].results == []


@pytest.mark.parametrize("code", [errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP])
def test_sendfile_when_copy_file_range_cannot(
    make_file, tmp_path, kernel, monkeypatch, code: int
) -> None:
    monkeypatch.setattr(os, "copy_file_range", failing(code))
    data = os.urandom(CHUNK_SIZE + 5)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out") == b"<" + data + b">"
    assert sum(kernel["sendfile"].results) == len(data)


@pytest.mark.parametrize("code", [errno.EXDEV, errno.ENOSYS, errno.EINVAL])
def test_chunks_when_no_kernel_copy_can(make_file, tmp_path, monkeypatch, code: int) -> None:
    monkeypatch.setattr(os, "copy_file_range", failing(code))
    monkeypatch.setattr(os, "sendfile", failing(code))
    data = os.urandom(2 * CHUNK_SIZE + 5)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out") == b"<" + data + b">"
        assert write(blob, tmp_path / "raw", buffering=0) == b"<" + data + b">"


def test_without_copy_file_range(make_file, tmp_path, kernel, monkeypatch) -> None:
    monkeypatch.delattr(os, "copy_file_range")
    data = os.urandom(CHUNK_SIZE + 5)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out") == b"<" + data + b">"
    assert sum(kernel["sendfile"].results) == len(data)


def test_without_any_kernel_copy(make_file, tmp_path, monkeypatch) -> None:
    monkeypatch.delattr(os, "copy_file_range")
    monkeypatch.delattr(os, "sendfile")
    data = os.urandom(CHUNK_SIZE + 5)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out") == b"<" + data + b">"


def test_a_fallback_goes_on_where_the_faster_copy_stopped(
    make_file, tmp_path, kernel, monkeypatch
) -> None:
    calls = []

    def some_then_exdev(source: int, target: int, count: int) -> int:
        calls.append(count)
        if len(calls) == 1:
            return _real_copy_file_range(source, target, 1000)
        raise OSError(errno.EXDEV, "cross-device")

    monkeypatch.setattr(os, "copy_file_range", some_then_exdev)
    data = os.urandom(CHUNK_SIZE + 5)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out") == b"<" + data + b">"
    assert kernel["sendfile"].results == [len(data) - 1000]


def test_no_progress_falls_back(make_file, tmp_path, kernel, monkeypatch) -> None:
    monkeypatch.setattr(os, "copy_file_range", lambda *args: 0)
    data = os.urandom(SMALL_PIECE + 1000)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out") == b"<" + data + b">"
    assert kernel["sendfile"].results == [len(data)]


def test_other_errors_are_raised(make_file, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(os, "copy_file_range", failing(errno.ENOSPC))
    with (
        FileBackedData(make_file("a.bin", b"d" * (SMALL_PIECE + 1))) as blob,
        open(tmp_path / "out", "wb") as out,
        pytest.raises(OSError) as caught,
    ):
        blob.write_to_file(out)
    assert caught.value.errno == errno.ENOSPC


def test_append_mode_falls_back_for_real(make_file, tmp_path, kernel) -> None:
    """copy_file_range refuses an O_APPEND target (EBADF), sendfile too (EINVAL)."""
    data = os.urandom(CHUNK_SIZE + 5)
    (tmp_path / "out").write_bytes(b"kept")
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out", mode="ab") == b"kept<" + data + b">"
    assert kernel["copy_file_range"].results == kernel["sendfile"].results == []


def test_into_a_pipe(make_file, kernel) -> None:
    data = os.urandom(SMALL_PIECE + 4000)
    read_end, write_end = os.pipe()
    with open(read_end, "rb") as reader, open(write_end, "wb") as writer:
        with FileBackedData(make_file("a.bin", data)) as blob:
            writer.write(b"<")
            blob.write_to_file(writer)
            writer.write(b">")
        writer.close()
        assert reader.read() == b"<" + data + b">"
    assert kernel["sendfile"].results == [len(data)]  # copy_file_range wants regular files


def test_buffered_bytes_keep_their_place(make_file, tmp_path, kernel) -> None:
    one, two = os.urandom(5000), os.urandom(3)
    cord = Cord(b"head")
    with (
        FileBackedData(make_file("1.bin", one)) as first,
        FileBackedData(make_file("2.bin", two)) as second,
    ):
        cord.append(first)
        cord.append(b"middle")
        cord.append(second)
        cord.append(b"tail")
        with open(tmp_path / "out", "wb") as out:
            out.write(b"<")
            cord.write_to_file(out)
            assert out.tell() == 1 + len(cord)
            out.write(b">")
            out.seek(2)
            out.write(b"E")
    expected = b"<hEad" + one + b"middle" + two + b"tail>"
    assert (tmp_path / "out").read_bytes() == expected
    assert kernel["copy_file_range"].results == [5000]  # 3 bytes go through ``write``


@pytest.mark.parametrize("size", [3, SMALL_PIECE + 3], ids=["small", "kernel"])
def test_in_the_middle_of_a_read_write_file(make_file, tmp_path, kernel, size: int) -> None:
    target = tmp_path / "out"
    before = bytes(range(256)) * (size // 256 + 2)
    target.write_bytes(before)
    data = os.urandom(size)
    with FileBackedData(make_file("a.bin", data)) as blob, open(target, "r+b") as out:
        assert out.read(2) == before[:2]  # Python now holds read-ahead past the position
        out.write(b"-")
        blob.write_to_file(out)
        assert out.tell() == 3 + size
        assert out.read(2) == before[3 + size : 5 + size]
        out.seek(2 + size)
        assert out.read(3) == data[-1:] + before[3 + size : 5 + size]
    assert target.read_bytes() == before[:2] + b"-" + data + before[3 + size :]
    assert kernel["copy_file_range"].results == ([] if size <= SMALL_PIECE else [size])


def test_shrink_during_a_kernel_copy(make_file, tmp_path, monkeypatch) -> None:
    path = make_file("a.bin", os.urandom(3 * CHUNK_SIZE))
    with FileBackedData(path) as blob, open(tmp_path / "out", "wb") as out:
        race_after_check(monkeypatch, path, lambda: os.truncate(path, CHUNK_SIZE + 5))
        with pytest.raises(FileChangedError, match=f"recorded {3 * CHUNK_SIZE} bytes, now "):
            blob.write_to_file(out)
    assert (tmp_path / "out").stat().st_size == CHUNK_SIZE + 5


def test_growth_during_a_kernel_copy(make_file, tmp_path, monkeypatch, kernel) -> None:
    path = make_file("a.bin", os.urandom(CHUNK_SIZE))
    with FileBackedData(path) as blob, open(tmp_path / "out", "wb") as out:
        race_after_check(monkeypatch, path, grow(path))
        with pytest.raises(FileChangedError, match=f"now {CHUNK_SIZE + 4}"):
            blob.write_to_file(out)
    assert kernel["copy_file_range"].results == [CHUNK_SIZE]


# Targets that are not a plain writable OS file take the chunked path, with its own errors


class CountingWriter(io.BufferedWriter):
    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__(raw)
        self.calls = 0

    def write(self, data: Any, /) -> int:
        self.calls += 1
        return super().write(data)


def test_a_subclass_keeps_its_write(make_file, tmp_path, kernel) -> None:
    data = os.urandom(2 * CHUNK_SIZE)
    with FileBackedData(make_file("a.bin", data)) as blob:
        with CountingWriter(io.FileIO(tmp_path / "out", "w")) as out:
            blob.write_to_file(out)
        assert out.calls == 2
    assert (tmp_path / "out").read_bytes() == data
    assert kernel["copy_file_range"].results == []


def test_a_buffered_writer_over_memory(make_file, kernel) -> None:
    memory = io.BytesIO()
    with FileBackedData(make_file("a.bin", b"data")) as blob:
        out = io.BufferedWriter(memory)
        blob.write_to_file(out)
        out.flush()
    assert memory.getvalue() == b"data"
    assert kernel["copy_file_range"].results == []


def test_a_closed_file(make_file, tmp_path) -> None:
    out = open(tmp_path / "out", "wb")  # noqa: SIM115
    out.close()
    with FileBackedData(make_file("a.bin", b"data")) as blob, pytest.raises(ValueError):
        blob.write_to_file(out)


def test_a_file_open_for_reading(make_file, tmp_path, monkeypatch) -> None:
    tried: list[str] = []
    for name in ("copy_file_range", "sendfile"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda *a, _n=name, _r=real: tried.append(_n) or _r(*a))
    with (
        FileBackedData(make_file("a.bin", b"data")) as blob,
        open(make_file("out", b""), "rb", buffering=0) as out,
        pytest.raises(io.UnsupportedOperation),
    ):
        blob.write_to_file(out)
    assert tried == []  # not handed to a kernel copy, which would fail with EBADF first


def test_the_owner_tag_is_computed_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    real = placeholders._make_tag
    monkeypatch.setattr(placeholders, "_tag", (-1, ""))
    monkeypatch.setattr(placeholders, "_make_tag", lambda pid: made.append(pid) or real(pid))
    assert placeholders._owner_tag() == placeholders._owner_tag()
    assert made == [os.getpid()]


def test_a_source_that_is_no_plain_os_file(make_file, tmp_path, read_spy, kernel) -> None:
    data = os.urandom(CHUNK_SIZE + 5)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert write(blob, tmp_path / "out") == b"<" + data + b">"
    assert read_spy.bytes_read == len(data)
    assert kernel["copy_file_range"].results == []


def test_fake_files_of_pyfakefs_are_written_in_chunks(fs, kernel) -> None:
    data = os.urandom(CHUNK_SIZE + 5)
    fs.create_file("/data/blob", contents=data)
    blob = FileBackedData("/data/blob")
    try:
        for buffering in (-1, 0):
            with open(f"/data/out{buffering}", "wb", buffering=buffering) as out:
                out.write(b"<")
                blob.write_to_file(out)
                out.write(b">")
            with open(f"/data/out{buffering}", "rb") as written:
                assert written.read() == b"<" + data + b">"
    finally:
        blob.close()
    assert kernel["copy_file_range"].results == kernel["sendfile"].results == []


# --------------------------------------------------------------------------------------------
# Into io.BytesIO: grown once, then read into


@pytest.mark.parametrize(
    ("initial", "position", "expected"),
    [
        (b"", 0, b"ABCDE"),
        (b"head:", 5, b"head:ABCDE"),
        (b"0123456789", 2, b"01ABCDE789"),
        (b"0123", 2, b"01ABCDE"),
        (b"0123", 6, b"0123\0\0ABCDE"),
    ],
    ids=["empty", "at-the-end", "inside", "across-the-end", "past-the-end"],
)
def test_bytesio_like_write_would(
    make_file, initial: bytes, position: int, expected: bytes
) -> None:
    out = io.BytesIO(initial)
    out.seek(position)
    with FileBackedData(make_file("a.bin", b"ABCDE")) as blob:
        blob.write_to_file(out)
    assert (out.getvalue(), out.tell()) == (expected, position + 5)
    out.write(b"!")  # no export of its memory is left behind
    assert out.getvalue()[position + 5] == ord("!")


def test_bytesio_is_read_into_not_written_in_chunks(make_file, monkeypatch) -> None:
    # the result is the same either way (above): only the route tells the fast path was taken
    real, chunks = file_backed._VerifiedReader.read_into, []

    def read_into(reader: Any, out: io.BytesIO) -> None:
        chunks.append(reader.remaining)
        real(reader, out)

    monkeypatch.setattr(file_backed._VerifiedReader, "read_into", read_into)
    out = io.BytesIO()
    with FileBackedData(make_file("a.bin", b"x" * (CHUNK_SIZE + 1))) as blob:
        blob.write_to_file(out)
    assert chunks == [CHUNK_SIZE + 1] and out.getvalue() == b"x" * (CHUNK_SIZE + 1)


def test_bytesio_large(make_file) -> None:
    data = os.urandom(3 * CHUNK_SIZE + 7)
    out = io.BytesIO()
    with FileBackedData(make_file("a.bin", data)) as blob:
        blob.write_to_file(out)
        blob.write_to_file(out)
    assert out.getvalue() == data + data


def test_bytesio_empty_blob(make_file) -> None:
    out = io.BytesIO(b"abc")
    out.seek(1)
    with FileBackedData(make_file("a.bin", b"")) as blob:
        blob.write_to_file(out)
    assert (out.getvalue(), out.tell()) == (b"abc", 1)


def test_bytesio_shrink_while_reading(make_file, monkeypatch) -> None:
    path = make_file("a.bin", os.urandom(CHUNK_SIZE))
    with FileBackedData(path) as blob:
        race_after_check(monkeypatch, path, lambda: os.truncate(path, 1000))
        with pytest.raises(FileChangedError, match=f"recorded {CHUNK_SIZE} bytes, now 1000"):
            blob.write_to_file(io.BytesIO())


def test_bytesio_growth_while_reading(make_file, monkeypatch) -> None:
    path = make_file("a.bin", os.urandom(1000))
    with FileBackedData(path) as blob:
        race_after_check(monkeypatch, path, grow(path))
        with pytest.raises(FileChangedError, match="recorded 1000 bytes, now 1004"):
            blob.write_to_file(io.BytesIO())


# --------------------------------------------------------------------------------------------
# Hashing: one thread, one reused buffer


class Recorder:
    """Stands in for ``hashlib.sha256`` in ``reference.file_backed``: records the threads that
    hash and the buffers they are given, and fails on the call numbered ``fail_at``."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.threads: set[str] = set()
        self.buffers: set[int] = set()
        self.updates = 0
        self.fail_at = fail_at

    def __call__(self) -> Any:
        real = _real_sha256()
        recorder = self

        class Recording:
            def update(self, data: Any) -> None:
                recorder.updates += 1
                recorder.threads.add(threading.current_thread().name)
                recorder.buffers.add(id(data.obj))
                if recorder.updates == recorder.fail_at:
                    raise RuntimeError("hashing failed")
                real.update(data)

            def digest(self) -> bytes:
                return real.digest()

        return Recording()


@pytest.mark.parametrize("size", [1, CHUNK_SIZE, CHUNK_SIZE + 1, 9 * CHUNK_SIZE + 12345])
def test_hashing_reads_into_one_buffer_in_the_calling_thread(
    make_file, monkeypatch, size: int
) -> None:
    """A chunk is hashed where it was just read: by the caller, from one buffer reused."""
    recorder = Recorder()
    monkeypatch.setattr(file_backed.hashlib, "sha256", recorder)
    data = os.urandom(size)
    with FileBackedData(make_file("a.bin", data)) as blob:
        assert blob.sha256() == _real_sha256(data).digest()
    assert recorder.threads == {threading.current_thread().name}
    assert len(recorder.buffers) == 1
    assert recorder.updates == -(-size // CHUNK_SIZE)


def test_hashing_memory_is_one_buffer(make_sparse) -> None:
    size = 64 * MiB
    with FileBackedData(make_sparse("big.bin", size)) as blob:
        tracemalloc.start()
        try:
            digest = blob.sha256()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert digest == hashlib.sha256(bytes(size)).digest()
    assert peak < CHUNK_SIZE + 256 * 1024, peak


def test_hashing_detects_a_shrink(make_file, monkeypatch) -> None:
    size = LARGE + CHUNK_SIZE
    path = make_file("a.bin", os.urandom(size))
    with FileBackedData(path) as blob:
        race_after_check(monkeypatch, path, lambda: os.truncate(path, CHUNK_SIZE + 7))
        with pytest.raises(FileChangedError, match=f"recorded {size} bytes, now {CHUNK_SIZE + 7}"):
            blob.sha256()


def test_hashing_detects_growth(make_file, monkeypatch) -> None:
    path = make_file("a.bin", os.urandom(LARGE))
    with FileBackedData(path) as blob:
        race_after_check(monkeypatch, path, grow(path))
        with pytest.raises(FileChangedError, match=f"now {LARGE + 4}"):
            blob.sha256()


@pytest.mark.parametrize("fail_at", [1, 5], ids=["while-reading", "at-the-end"])
def test_an_error_while_hashing_is_raised_and_nothing_cached(
    make_file, monkeypatch, fail_at: int
) -> None:
    data = os.urandom(LARGE + 1)  # five chunks
    with FileBackedData(make_file("a.bin", data)) as blob:
        monkeypatch.setattr(file_backed.hashlib, "sha256", Recorder(fail_at=fail_at))
        with pytest.raises(RuntimeError, match="hashing failed"):
            blob.sha256()
        monkeypatch.undo()
        assert blob.sha256() == hashlib.sha256(data).digest()


# --------------------------------------------------------------------------------------------
# Dedup: the very object of a stored buffer is not hashed to compare with itself


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """What ``reference.named_data`` hashes (``bytes`` blobs)."""
    fed: list[bytes] = []

    def sha256(data: bytes) -> Any:
        fed.append(data)
        return _real_sha256(data)

    monkeypatch.setattr(named_data.hashlib, "sha256", sha256)
    return fed


def test_the_same_bytes_object_is_not_hashed(hashed) -> None:
    weights = b"W" * 100
    store = NamedDataStore()
    store.add_named_data("a", weights)
    store.add_named_data("b", weights, 4, "tag")
    store.add_named_data("a", weights)
    assert hashed == []
    assert store.buffers == [weights]
    store.add_named_data("c", bytes(bytearray(weights)))  # equal, another object
    assert [len(data) for data in hashed] == [100, 100]  # the new blob, the stored one, once each
    store.add_named_data("c", bytes(bytearray(weights)))
    assert len(hashed) == 3  # only the new object
    assert len(store.buffers) == 1


@pytest.mark.parametrize(
    ("alignment", "tag"), [(1, None), (2, None), (1, "t")], ids=["plain", "aligned", "tagged"]
)
def test_the_usual_arguments_of_an_add_are_checked_by_type_alone(
    monkeypatch: pytest.MonkeyPatch, alignment: int, tag: str | None
) -> None:
    checked: list[object] = []
    monkeypatch.setattr(NamedDataStore, "_check_arguments", staticmethod(checked.append))
    store = NamedDataStore()
    store.add_named_data("k", b"blob", alignment, tag)
    assert checked == []  # the general check, which the short way stands for, never ran
    entries = store.pte_data if tag is None else store.external_data[tag]
    assert entries["k"] == DataEntry(0, alignment, None)


def test_a_digest_once_known_is_not_computed_again(hashed) -> None:
    # one fingerprint: three equal objects (the first stays the lone buffer, asked twice), then
    # two other contents (the second and the third buffer of the fingerprint); re-adding each key
    # with an equal copy asks for the stored buffer's digest once more
    prefix = b"P" * named_data.FINGERPRINT_PREFIX
    a, b, c = prefix + b"a", prefix + b"b", prefix + b"c"
    blobs = [a, bytes(bytearray(a)), bytes(bytearray(a)), b, c]
    store = NamedDataStore()
    store.merge_named_data_store(
        NamedDataStoreOutput(blobs, {f"k{i}": DataEntry(i, 1) for i in range(5)}, {})
    )
    store.add_named_data("k3", bytes(bytearray(b)))
    store.add_named_data("k4", bytes(bytearray(c)))
    assert store.buffers == [a, b, c]
    assert len(hashed) == len({id(data) for data in hashed}) == 7  # each object once


def test_the_same_file_object_is_not_read(make_file, read_spy) -> None:
    with FileBackedData(make_file("a.bin", os.urandom(4096))) as blob:
        store = NamedDataStore()
        store.add_named_data("a", blob)
        store.add_named_data("b", blob)
        store.add_named_data("a", blob)
        other = NamedDataStore()
        other.merge_named_data_store(store.get_named_data_store_output())
        other.merge_named_data_store(store.get_named_data_store_output())
        assert read_spy.bytes_read <= 32 * 4  # fingerprints only
        assert store.buffers == other.buffers == [blob]
