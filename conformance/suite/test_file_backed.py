"""FileBackedData: construction, reading, hashing, writing, change detection, closed state and
copies (spec sections 3.1, 3.3, 3.4 and 3.6; ``move_from`` is in test_moves.py)."""

from __future__ import annotations

import contextlib
import copy
import gc
import hashlib
import io
import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.api import Cord, FileBackedData, Implementation
from conformance.harness.block_size import BLOCKS, LARGE_BLOCK
from conformance.harness.block_size import blocks as blocks_of
from conformance.harness.checks import check
from conformance.harness.child import child_script, run_child
from conformance.harness.helpers import Blobs, snapshot, sparse, state, zeros_digest
from conformance.harness.in_place import after_first_read, aged, rewrite_in_place
from conformance.harness.measure import (
    BIG,
    MEMORY_BOUND,
    PREFIX_READ_BOUND,
    READ_BOUND,
    MiB,
    bytes_read,
    peak_memory,
)
from conformance.harness.observe import unobserved
from conformance.harness.os_faults import calls_of
from conformance.harness.sinks import ShortWriter, WriteOnly
from conformance.suite.path_like import PathLikeOf

clause = pytest.mark.clause

_BORROWED_EXIT_CHILD = child_script(r"""
blob = impl.FileBackedData(os.path.join(directory, case))
assert len(blob) == 24  # left open: the exit backstop runs with the blob alive
""")

Op = Callable[[FileBackedData, io.BytesIO], object]
Copier = Callable[[FileBackedData], FileBackedData]

READS: dict[str, Op] = {
    "prefix": lambda blob, out: blob.prefix(8),
    "sha256": lambda blob, out: blob.sha256(),
    "to_bytes": lambda blob, out: blob.to_bytes(),
    "write_to_file": lambda blob, out: blob.write_to_file(out),
}
"""Every operation that reads the file (FBD-CHANGE-1)."""

AFTER_CLOSE: dict[str, Op] = {"len": lambda blob, out: len(blob), **READS}
"""Every operation FBD-CLOSED-1 forbids after ``close()``."""


class CountingSink:
    """A sink that keeps no data: it counts and hashes what it is given."""

    def __init__(self, on_first_write: Callable[[], object] | None = None) -> None:
        self.size = 0
        self.digest = hashlib.sha256()
        self._on_first_write = on_first_write

    def write(self, data: bytes | memoryview) -> int:
        if self._on_first_write is not None:
            hook, self._on_first_write = self._on_first_write, None
            hook()
        self.size += len(data)
        self.digest.update(data)
        return len(data)


def outcome(call: Callable[[], bytes]) -> bytes | Exception:
    """What ``call()`` returns, or the exception it raises."""
    try:
        return call()
    except Exception as exc:  # the caller judges which errors are acceptable
        return exc


def make(kind: str, blobs: Blobs, data: bytes) -> FileBackedData:
    """A blob holding ``data``: ``borrowed`` wraps a file, ``owned`` takes one over."""
    return blobs.wrap(blobs.file(data)) if kind == "borrowed" else blobs.moved(data)


KINDS = ("borrowed", "owned")


@pytest.mark.requires("file-backed")
class TestConstruction:
    @clause("FBD-INIT-1")
    def test_len_is_the_size_at_construction(self, impl: Implementation, blobs: Blobs) -> None:
        path = blobs.file(b"0123456789")
        blob = blobs.wrap(path)
        with path.open("ab") as f:
            f.write(b"grown afterwards")
        assert len(blob) == 10

    @clause("FBD-INIT-1")
    def test_len_reads_nothing(self, impl: Implementation, blobs: Blobs, tmp_path: Path) -> None:
        path = sparse(tmp_path / "big.bin", BIG)
        with bytes_read() as read:
            blob = blobs.wrap(path)
            size = len(blob)
        assert size == BIG
        assert read[0] < READ_BOUND, f"construction and len() read {read[0]} bytes"

    @clause("FBD-INIT-2")
    @pytest.mark.parametrize("release", ["close", "close-twice", "with", "collect"])
    def test_borrowed_file_survives_release(
        self, impl: Implementation, blobs: Blobs, release: str
    ) -> None:
        path = blobs.file(b"someone else's file")
        blob = impl.FileBackedData(str(path))
        if release == "with":
            with blob as entered:
                assert entered.to_bytes() == b"someone else's file"
        elif release == "collect":
            del blob
            gc.collect()
        else:
            blob.close()
            if release == "close-twice":
                blob.close()
        assert path.read_bytes() == b"someone else's file"

    @clause("FBD-INIT-2")
    @pytest.mark.requires("subprocess")
    def test_borrowed_file_survives_exit(self, impl: Implementation, blobs: Blobs) -> None:
        path = blobs.file(b"outlives the interpreter")
        run = run_child(impl, _BORROWED_EXIT_CHILD, path.parent, path.name)
        assert run.returncode == 0, run.stderr
        assert path.read_bytes() == b"outlives the interpreter"

    @clause("FBD-INIT-3")
    @pytest.mark.parametrize(
        "release",
        [
            pytest.param("close", marks=pytest.mark.relies_on("FBD-CLOSE-1")),
            pytest.param("with", marks=pytest.mark.relies_on("FBD-CLOSE-3", "FBD-CLOSE-1")),
        ],
    )
    def test_owned_file_is_deleted_on_release(
        self, impl: Implementation, blobs: Blobs, release: str
    ) -> None:
        path = blobs.file(b"temporary weights")
        blob = blobs.wrap(path, cleanup=True)
        assert blob.to_bytes() == b"temporary weights"
        if release == "with":
            with blob:
                pass
        else:
            blob.close()
        assert not os.path.lexists(path)

    @clause("FBD-INIT-4")
    def test_missing_path(self, impl: Implementation, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError):
            impl.FileBackedData(str(tmp_path / "absent.bin"))

    @clause("FBD-INIT-5")
    def test_pathlike_is_accepted(self, impl: Implementation, blobs: Blobs) -> None:
        path = blobs.file(b"pathlib")
        blob = blobs.track(impl.FileBackedData(path))
        assert (len(blob), blob.to_bytes()) == (7, b"pathlib")

    @clause("FBD-INIT-5")
    @pytest.mark.parametrize("kind", ["bytes", "fd", "object", "pathlike-of-bytes"])
    def test_path_of_another_type(self, impl: Implementation, blobs: Blobs, kind: str) -> None:
        path = blobs.file(b"not named by a str")
        fd = os.open(path, os.O_RDONLY)
        try:
            value: object = {
                "bytes": os.fsencode(path),
                "fd": fd,  # an int names an open file descriptor to os.stat
                "object": object(),
                "pathlike-of-bytes": PathLikeOf(os.fsencode(path)),  # not an os.PathLike[str]
            }[kind]
            with pytest.raises(TypeError) as raised:
                blobs.track(impl.FileBackedData(value))
            named = [repr(value)] + (
                [repr(os.fsencode(path))] if kind.startswith("pathlike") else []
            )
            assert any(name in str(raised.value) for name in named), (
                f"FileBackedData({value!r}) raised {raised.value!r}, naming neither {named}"
            )
        finally:
            os.close(fd)

    @clause("FBD-INIT-5")
    def test_path_none(self, impl: Implementation) -> None:
        with pytest.raises(TypeError, match="None"):
            impl.FileBackedData(None)

    @clause("FBD-INIT-5")
    @pytest.mark.parametrize("cleanup", [False, True], ids=["borrowed", "owned"])
    def test_directory_is_refused(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, cleanup: bool
    ) -> None:
        directory = tmp_path / "dir"
        directory.mkdir()
        with pytest.raises(IsADirectoryError):
            blobs.wrap(directory, cleanup=cleanup)
        assert directory.is_dir()

    @clause("FBD-INIT-5")
    @pytest.mark.parametrize("kind", ["fifo", "device"])
    def test_other_non_regular_file(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, kind: str
    ) -> None:
        if kind == "device":
            path = Path(os.devnull)
            if not path.is_char_device():
                pytest.skip(f"{os.devnull} is not a character device on this machine")
            held = None
        else:
            path = tmp_path / "fifo"
            os.mkfifo(path)
            # A writer holds the FIFO open, so an implementation that opens it does not hang.
            held = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        try:
            with pytest.raises(ValueError, match=re.escape(str(path))):
                blobs.wrap(path)  # never cleanup=True here: it could delete the device
        finally:
            if held is not None:
                os.close(held)

    @clause("FBD-INIT-6")
    @pytest.mark.parametrize("kind", ["hex-str", "bytearray", "int"])
    def test_digest_of_another_type(self, impl: Implementation, blobs: Blobs, kind: str) -> None:
        data = b"digest type"
        value: object = {
            "hex-str": hashlib.sha256(data).hexdigest(),
            "bytearray": bytearray(hashlib.sha256(data).digest()),
            "int": 32,
        }[kind]
        with pytest.raises(TypeError, match=re.escape(repr(value))):
            blobs.track(impl.FileBackedData(str(blobs.file(data)), sha256=value))

    @clause("FBD-INIT-6")
    @pytest.mark.parametrize("length", [0, 31, 33, 64])
    def test_digest_of_another_length(
        self, impl: Implementation, blobs: Blobs, length: int
    ) -> None:
        value = bytes(range(length))
        with pytest.raises(ValueError, match=re.escape(repr(value))):
            blobs.wrap(blobs.file(b"digest length"), sha256=value)

    @clause("FBD-INIT-6")
    @pytest.mark.parametrize("value", [1, 0, "yes", None], ids=["1", "0", "str", "None"])
    def test_cleanup_of_another_type(
        self, impl: Implementation, blobs: Blobs, value: object
    ) -> None:
        with pytest.raises(TypeError, match=re.escape(repr(value))):
            blobs.track(impl.FileBackedData(str(blobs.file(b"cleanup")), cleanup=value))

    @clause("FBD-INIT-7")
    def test_owning_a_symlink_is_refused(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        target = blobs.file(b"the data")
        link = tmp_path / "link.bin"
        link.symlink_to(target)
        with pytest.raises(ValueError):
            blobs.wrap(link, cleanup=True)
        assert link.is_symlink()
        assert target.read_bytes() == b"the data"

    @clause("FBD-INIT-7")
    def test_borrowed_symlink_is_followed(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        target = blobs.file(b"the data behind a link")
        link = tmp_path / "link.bin"
        link.symlink_to(target)
        blob = blobs.wrap(link)
        assert (len(blob), blob.to_bytes()) == (22, b"the data behind a link")
        dangling = tmp_path / "dangling.bin"
        dangling.symlink_to(tmp_path / "nowhere.bin")
        with pytest.raises(FileNotFoundError):
            blobs.wrap(dangling)


@pytest.mark.requires("file-backed")
class TestReading:
    DATA = bytes(range(256)) * 4

    @clause("FBD-READ-1")
    @pytest.mark.parametrize("size", [0, 1, 32, 1024, 1025, 10**9])
    @pytest.mark.parametrize("kind", KINDS)
    def test_prefix(self, impl: Implementation, blobs: Blobs, kind: str, size: int) -> None:
        blob = make(kind, blobs, self.DATA)
        assert blob.prefix(size) == self.DATA[:size]

    @clause("FBD-READ-1")
    def test_prefix_of_an_empty_file(self, impl: Implementation, blobs: Blobs) -> None:
        assert blobs.wrap(blobs.file(b"")).prefix(32) == b""

    @clause("FBD-READ-1")
    @pytest.mark.parametrize("size", [32, MiB])
    @pytest.mark.parametrize("blocks", BLOCKS)
    def test_prefix_reads_only_the_prefix(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, size: int, blocks: str
    ) -> None:
        """The bytes asked for, plus at most one read buffer (PREFIX_READ_BOUND), on this
        filesystem and on one whose files report 4 MiB blocks (``large``: NFS, Lustre)."""
        blob = blobs.wrap(sparse(tmp_path / "big.bin", BIG))
        with (
            calls_of() as calls,
            blocks_of(blocks) as seen,
            bytes_read() as read,
        ):
            head = blob.prefix(size)
        if blocks == "large" and not seen and not calls:
            unobserved("prefix() made no stat, open() or os call the harness could see")
        assert head == bytes(size)
        where = f" of a file whose st_blksize is {LARGE_BLOCK}" if blocks == "large" else ""
        assert read[0] <= size + PREFIX_READ_BOUND, f"prefix({size}){where} read {read[0]} bytes"

    @clause("FBD-READ-2")
    @pytest.mark.parametrize("size", [0, 1, 3 * MiB + 5])
    @pytest.mark.parametrize("kind", KINDS)
    def test_to_bytes(self, impl: Implementation, blobs: Blobs, kind: str, size: int) -> None:
        data = os.urandom(size)
        blob = make(kind, blobs, data)
        result = blob.to_bytes()
        assert type(result) is bytes
        assert result == data

    @clause("FBD-READ-3")
    @pytest.mark.parametrize(
        ("value", "error"),
        [
            (-1, ValueError),
            (-33, ValueError),
            (None, TypeError),
            (1.5, TypeError),
            (True, TypeError),
            (False, TypeError),
            ("3", TypeError),
        ],
        ids=["-1", "-33", "None", "float", "True", "False", "str"],
    )
    def test_prefix_argument(
        self, impl: Implementation, blobs: Blobs, value: object, error: type[Exception]
    ) -> None:
        blob = blobs.moved(self.DATA)
        with pytest.raises(error, match=re.escape(repr(value))):
            blob.prefix(value)


@pytest.mark.requires("file-backed")
class TestHashing:
    @clause("FBD-HASH-1")
    @pytest.mark.parametrize("size", [0, 1, MiB + 1, 9 * MiB + 7])
    @pytest.mark.parametrize("kind", KINDS)
    def test_digest(self, impl: Implementation, blobs: Blobs, kind: str, size: int) -> None:
        data = os.urandom(size)
        digest = make(kind, blobs, data).sha256()
        assert type(digest) is bytes
        assert digest == hashlib.sha256(data).digest()

    @clause("FBD-HASH-2")
    def test_digest_is_cached(self, impl: Implementation, blobs: Blobs) -> None:
        path = blobs.file(b"first contents")
        blob = blobs.wrap(path)
        first = blob.sha256()
        check(first == hashlib.sha256(b"first contents").digest(), "not SHA-256", "FBD-HASH-1")
        with path.open("r+b") as f:  # same file, same size: only a reread could notice
            f.write(b"other contents")
        assert blob.sha256() == first == hashlib.sha256(b"first contents").digest()

    @clause("FBD-HASH-2")
    def test_second_call_reads_nothing(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        blob = blobs.wrap(sparse(tmp_path / "big.bin", 16 * MiB))
        first = blob.sha256()
        check(first == zeros_digest(16 * MiB), "not SHA-256", "FBD-HASH-1")
        with bytes_read() as read:
            second = blob.sha256()
        assert first == second == zeros_digest(16 * MiB)
        assert read[0] < READ_BOUND, f"a cached sha256() read {read[0]} bytes"

    @clause("FBD-HASH-3")
    def test_hashing_memory_is_bounded(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        blob = blobs.wrap(sparse(tmp_path / "big.bin", BIG))
        digests: list[bytes] = []
        peak = peak_memory(lambda: digests.append(blob.sha256()))
        check(digests == [zeros_digest(BIG)], "not SHA-256", "FBD-HASH-1")
        assert peak < MEMORY_BOUND, f"hashing {BIG} bytes held {peak} bytes"

    @clause("FBD-HASH-1")
    @pytest.mark.parametrize("how", ["rewritten", "replaced"])
    def test_digest_of_a_new_file_at_a_path_hashed_before(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        # Same path, same size: only a digest remembered by path and size would repeat itself.
        path = blobs.file(b"first contents")
        first = impl.FileBackedData(str(path))
        assert first.sha256() == hashlib.sha256(b"first contents").digest()
        first.close()
        if how == "rewritten":
            path.write_bytes(b"other contents")
        else:
            os.replace(blobs.file(b"other contents"), path)
        assert blobs.wrap(path).sha256() == hashlib.sha256(b"other contents").digest()


@pytest.mark.requires("file-backed")
class TestWriting:
    @clause("FBD-WRITE-1")
    def test_at_the_current_position_of_a_file(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        blob = blobs.moved(b"BLOB")
        target = tmp_path / "out.bin"
        target.write_bytes(b"0123456789")
        with target.open("r+b") as out:
            out.seek(3)
            blob.write_to_file(out)
            assert out.tell() == 7
        assert target.read_bytes() == b"012BLOB789"

    @clause("FBD-WRITE-1")
    def test_at_the_current_position_of_a_bytesio(self, impl: Implementation, blobs: Blobs) -> None:
        blob = blobs.wrap(blobs.file(b"BLOB"))
        out = io.BytesIO()
        out.write(b"head:")
        blob.write_to_file(out)
        out.write(b":tail")
        assert out.getvalue() == b"head:BLOB:tail"

    @clause("FBD-WRITE-1")
    @pytest.mark.parametrize("sink", ["buffered-file", "raw-file", "bytesio", "write-only"])
    def test_any_binary_sink(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, sink: str
    ) -> None:
        data = os.urandom(2 * MiB + 3)
        blob = blobs.moved(data)
        if sink in ("buffered-file", "raw-file"):
            target = tmp_path / "out.bin"
            with target.open("wb", buffering=0 if sink == "raw-file" else -1) as out:
                blob.write_to_file(out)
            written = target.read_bytes()
        elif sink == "bytesio":
            buffer = io.BytesIO()
            blob.write_to_file(buffer)
            written = buffer.getvalue()
        else:
            only = WriteOnly()
            blob.write_to_file(only)
            written = b"".join(only.parts)
        assert written == data

    @clause("FBD-WRITE-1")
    def test_short_writes_are_retried(self, impl: Implementation, blobs: Blobs) -> None:
        data = os.urandom(64 * 1024 + 1)
        blob = blobs.moved(data)
        out = ShortWriter(limit=1000)
        blob.write_to_file(out)
        assert len(out.received) == len(data), f"wrote {len(out.received)} of {len(data)} bytes"
        assert bytes(out.received) == data

    @clause("FBD-WRITE-2")
    def test_writing_memory_is_bounded(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        blob = blobs.wrap(sparse(tmp_path / "big.bin", BIG))
        sink = CountingSink()
        peak = peak_memory(lambda: blob.write_to_file(sink))
        assert (sink.size, sink.digest.digest()) == (BIG, zeros_digest(BIG))
        assert peak < MEMORY_BOUND, f"writing {BIG} bytes held {peak} bytes"

    @clause("FBD-WRITE-1")
    @pytest.mark.parametrize("size", [1, 4, 20])
    @pytest.mark.parametrize("kind", KINDS)
    def test_in_the_middle_of_a_bytesio(
        self, impl: Implementation, blobs: Blobs, kind: str, size: int
    ) -> None:
        # A position before the end: where a write at the end and one at the position differ.
        data = bytes(range(65, 65 + size))
        blob = make(kind, blobs, data)
        out = io.BytesIO(b"0123456789")
        out.seek(3)
        blob.write_to_file(out)
        assert out.tell() == 3 + size
        assert out.getvalue() == (b"012" + data + b"0123456789"[3 + size :])


@pytest.mark.requires("file-backed")
class TestShortWrites:
    @clause("FBD-WRITE-1")
    def test_a_sink_taking_one_byte_per_call_gets_everything(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        """One byte per call is progress, not a sink that takes nothing. Kills a mutmut mutant of
        the reference that gives up on a sink whose writes take a single byte."""
        data = bytes(range(256))
        sink = ShortWriter(1)
        blobs.moved(data).write_to_file(sink)
        assert bytes(sink.received) == data


@pytest.mark.requires("file-backed")
class TestChangeDetection:
    SIZE = 4096

    @staticmethod
    def change(path: Path, how: str) -> int | None:
        """Change the file at ``path``; return its new size (None when it is another file)."""
        if how == "shrink":
            os.truncate(path, 1000)
            return 1000
        if how == "grow":
            with path.open("ab") as f:
                f.write(bytes(904))
            return 5000
        replacement = path.with_name("replacement.tmp")
        replacement.write_bytes(os.urandom(TestChangeDetection.SIZE))  # same size, other inode
        os.replace(replacement, path)
        return None

    @clause("FBD-CHANGE-1")
    @pytest.mark.parametrize("op", list(READS))
    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("how", ["shrink", "grow", "replace"])
    def test_changed_file_raises(
        self, impl: Implementation, blobs: Blobs, how: str, kind: str, op: str
    ) -> None:
        blob = make(kind, blobs, os.urandom(self.SIZE))
        path = blobs.path(blob)
        new_size = self.change(path, how)
        out = io.BytesIO()
        try:
            with pytest.raises(OSError) as raised:
                READS[op](blob, out)
            message = str(raised.value)
            assert str(path) in message
            if new_size is not None:
                assert str(self.SIZE) in message and str(new_size) in message, message
        finally:
            blob.close()
            if kind == "owned":  # the file that now sits at the owned path is nobody's
                path.unlink(missing_ok=True)

    @clause("FBD-CHANGE-1")
    @pytest.mark.relies_on("FBD-WRITE-2")  # changed at the first write: only a stream reads on
    @pytest.mark.parametrize("how", ["shrink", "grow"])
    def test_change_while_writing_raises(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, how: str
    ) -> None:
        size = 40 * MiB  # more than one chunk of any implementation within MEMORY_BOUND
        path = sparse(tmp_path / "big.bin", size)
        blob = blobs.wrap(path)

        def change() -> None:
            if how == "shrink":
                os.truncate(path, MiB)
            else:
                with path.open("ab") as f:
                    f.write(bytes(MiB))

        sink = CountingSink(on_first_write=change)
        with pytest.raises(OSError):
            blob.write_to_file(sink)
        assert sink.size <= size

    @clause("FBD-CHANGE-1")
    @pytest.mark.parametrize("op", list(READS))
    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("how", ["grow", "replace"])
    def test_changed_empty_file_raises(
        self, impl: Implementation, blobs: Blobs, how: str, kind: str, op: str
    ) -> None:
        # An empty blob has nothing to copy, and must still be checked before it writes nothing.
        blob = make(kind, blobs, b"")
        path = blobs.path(blob)
        if how == "grow":
            path.write_bytes(b"grown")
        else:
            os.replace(blobs.file(b""), path)  # another inode, still empty
        out = io.BytesIO()
        try:
            with pytest.raises(OSError, match=re.escape(str(path))):
                READS[op](blob, out)
            assert out.getvalue() == b""
        finally:
            blob.close()
            if kind == "owned":  # the file that now sits at the owned path is nobody's
                path.unlink(missing_ok=True)


class _ChangingSink:
    """A sink that changes the file at ``path`` to ``size`` bytes (sparse) on its first write, and
    keeps only a count of what it is given."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        self.size = size
        self.received = 0

    def write(self, data: bytes | memoryview) -> int:
        if not self.received:
            os.truncate(self.path, self.size)
        self.received += len(data)
        return len(data)


class _RewritingSink:
    """A sink that hashes what it is given and runs ``action`` once, at the first write made when
    at least ``after`` bytes were written before it."""

    def __init__(self, action: Callable[[], object], after: int) -> None:
        self.digest = hashlib.sha256()
        self.received = 0
        self.ran = False
        self._action = action
        self._after = after

    def write(self, data: bytes | memoryview) -> int:
        if not self.ran and self.received >= self._after:
            self.ran = True
            self._action()
        self.received += len(data)
        self.digest.update(data)
        return len(data)


@pytest.mark.requires("file-backed")
class TestKnownDigestOfAChangedFile:
    @clause("FBD-MOVE-7")
    @pytest.mark.parametrize("how", ["move_from", "constructor"])
    def test_a_supplied_digest_is_returned_after_the_file_changed(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        """sha256() with a digest known reads nothing, so a change is not seen by it (FBD-CHANGE-1
        binds the calls that read)."""
        blobs.require_hashing()
        data = b"hashed while written"
        digest = hashlib.sha256(data).digest()
        path = blobs.file(data)
        blob = (
            blobs.move(path, sha256=digest)
            if how == "move_from"
            else blobs.wrap(path, sha256=digest)
        )
        changed = blobs.path(blob)
        with open(changed, "ab") as f:
            f.write(b" and grown since")
        try:
            assert blob.sha256() == digest, (
                f"sha256() of a blob made by {how} with a supplied digest, after its file grew, "
                "did not return the supplied digest"
            )
        finally:
            blob.close()  # a changed owned file is no longer the owned one (FBD-IDENT-1): it stays
            changed.unlink(missing_ok=True)


@pytest.mark.requires("file-backed")
class TestChangeWhileStreaming:
    @staticmethod
    def _big(tmp_path: Path) -> Path:
        return sparse(tmp_path / "big.bin", 8 * MiB)

    @clause("FBD-CHANGE-1")
    @pytest.mark.relies_on("FBD-WRITE-2")  # changed at the first write: only a stream reads on
    @pytest.mark.parametrize("change", ["shrink", "grow"])
    def test_a_change_noticed_part_way_names_both_sizes(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, change: str
    ) -> None:
        """A size change noticed part-way through a write names the recorded and the actual
        size. Kills mutmut mutants of the reference that report a wrong size there."""
        path = self._big(tmp_path)
        blob = blobs.wrap(path)
        new_size = MiB if change == "shrink" else 72 * MiB
        with pytest.raises(OSError) as raised:
            blob.write_to_file(_ChangingSink(path, new_size))
        message = str(raised.value)
        assert str(path) in message
        assert str(8 * MiB) in message and str(new_size) in message, message

    @clause("FBD-WRITE-2")
    def test_growth_while_writing_is_not_read_at_once(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        """A file that grows by 64 MiB while it is written is not read into memory, whether the
        write then raises (strict) or not. Kills a mutmut mutant of the reference that reads the
        rest of the file at once to see whether it grew."""
        path = self._big(tmp_path)
        blob = blobs.wrap(path)
        sink = _ChangingSink(path, 72 * MiB)

        def write() -> None:
            with contextlib.suppress(OSError):  # strict raises here: only memory is judged
                blob.write_to_file(sink)

        peak = peak_memory(write)
        assert peak < MEMORY_BOUND, f"writing a file that grew by 64 MiB held {peak} bytes"

    REWRITTEN_SIZE = 20 * MiB
    """More than two chunks of any implementation within MEMORY_BOUND (ExecuTorch's are 8 MiB)."""

    @clause("FBD-CHANGE-1")
    @pytest.mark.parametrize(
        "op",
        [
            pytest.param("write_to_file", marks=pytest.mark.relies_on("FBD-WRITE-1")),
            pytest.param("Cord.write_to_file", marks=pytest.mark.relies_on("CORD-WRITE-1")),
            pytest.param("sha256", marks=pytest.mark.relies_on("FBD-HASH-1")),
            pytest.param("to_bytes", marks=pytest.mark.relies_on("FBD-READ-2")),
            pytest.param("prefix", marks=pytest.mark.relies_on("FBD-READ-1")),
        ],
    )
    @pytest.mark.parametrize("mtime", ["moved", "set back"])
    def test_a_rewrite_to_the_same_size_gives_the_contents_or_raises(
        self, impl: Implementation, blobs: Blobs, op: str, mtime: str
    ) -> None:
        """A file truncated and regrown to its recorded size after its first chunk was read (by a
        sink's first write of it, or when the first read call returns) is not read on as if
        unchanged: the call raises an OSError naming the path, or gives the contents as they were
        (a read that had them all by then). The file's time is set far back before it is wrapped,
        so that the rewrite moves ``st_mtime_ns`` on any filesystem; with ``set back``, the writer
        restores it with ``utime`` and only ``st_ctime_ns`` tells."""
        data = b"\xa5" * self.REWRITTEN_SIZE
        path = blobs.file(data)
        aged(path)
        blob = blobs.wrap(path)
        head = b"head"

        def rewrite() -> None:
            rewrite_in_place(path, reset_mtime=mtime == "set back")

        result: bytes | Exception
        if op in ("write_to_file", "Cord.write_to_file"):
            writer: FileBackedData | Cord = blob
            expected = hashlib.sha256(data).digest()
            if op == "Cord.write_to_file":
                writer = impl.Cord(head)
                writer.append(blob)
                expected = hashlib.sha256(head + data).digest()
            sink = _RewritingSink(rewrite, after=len(head) if op == "Cord.write_to_file" else 0)

            def write() -> bytes:
                writer.write_to_file(sink)
                return sink.digest.digest()

            result = outcome(write)
            ran = sink.ran
        else:
            calls: dict[str, Callable[[], bytes]] = {
                "sha256": blob.sha256,
                "to_bytes": blob.to_bytes,
                "prefix": lambda: blob.prefix(self.REWRITTEN_SIZE),
            }
            with after_first_read(rewrite) as hooked:
                result = outcome(calls[op])
            ran = hooked()
            expected = hashlib.sha256(data).digest() if op == "sha256" else data
        if not ran:
            pytest.skip(f"{op} read the file by no call a Python hook sees: nothing was injected")
        if isinstance(result, Exception):
            assert isinstance(result, OSError), f"{op} raised {result!r}, not an OSError"
            assert str(path) in str(result), f"{op}'s error does not name {path}: {result}"
        else:
            assert result == expected, (
                f"{op} of a file truncated and regrown to its size while it was read (its "
                f"st_mtime_ns {mtime}) gave a wrong output and no error"
            )


@pytest.mark.requires("file-backed")
class TestClosedState:
    @clause("FBD-CLOSED-1")
    @pytest.mark.parametrize("where", ["Cord()", "Cord.append", "add_named_data"])
    def test_a_closed_object_is_refused_where_it_is_handed_on(
        self, impl: Implementation, blobs: Blobs, where: str
    ) -> None:
        blob = blobs.moved(b"closed before it was handed on")
        path = blobs.path(blob)
        blob.close()
        cord = impl.Cord(b"kept")
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = (len(cord), bytes(cord), state(store))
        with pytest.raises(ValueError, match=re.escape(str(path))):
            if where == "Cord()":
                impl.Cord(blob)
            elif where == "Cord.append":
                cord.append(blob)
            else:
                store.add_named_data("closed", blob)
        assert (len(cord), bytes(cord), state(store)) == before

    @clause("FBD-CLOSED-1")
    @pytest.mark.parametrize(
        "how",
        [
            "same alignment",
            "new alignment",
            # the merge must replay the external entry to meet the closed blob at all
            pytest.param("merge of its output", marks=pytest.mark.relies_on("NDS-MERGE-1")),
        ],
    )
    def test_a_closed_object_is_refused_under_the_key_that_names_it(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        """The very object a key already names needs no read to be judged equal to itself: it is
        still closed, and refused like any other closed blob (a shortcut by identity must not
        skip the check)."""
        blob = blobs.moved(b"added, then closed")
        path = blobs.path(blob)
        store = impl.NamedDataStore()
        store.add_named_data("k", blob, 4, external_tag="model")
        output = store.get_named_data_store_output()
        blob.close()
        before = snapshot(store)
        with pytest.raises(ValueError, match=re.escape(str(path))):
            if how == "merge of its output":
                store.merge_named_data_store(output)
            else:
                alignment = 4 if how == "same alignment" else 8
                store.add_named_data("k", blob, alignment, external_tag="model")
        assert snapshot(store) == before

    @clause("FBD-CLOSED-1")
    @pytest.mark.parametrize("kind", KINDS)
    def test_closed_flag(self, impl: Implementation, blobs: Blobs, kind: str) -> None:
        blob = make(kind, blobs, b"flag")
        assert getattr(blob, "closed", None) is False
        blob.close()
        assert getattr(blob, "closed", None) is True

    @clause("FBD-CLOSED-1")
    @pytest.mark.parametrize("op", list(AFTER_CLOSE))
    @pytest.mark.parametrize("kind", KINDS)
    def test_use_after_close_raises(
        self, impl: Implementation, blobs: Blobs, kind: str, op: str
    ) -> None:
        blob = make(kind, blobs, b"the old data")
        path = blobs.path(blob)
        blob.sha256()  # cached: it must not be handed out after close either
        blob.close()
        newcomer = path.with_name("newcomer.tmp")
        newcomer.write_bytes(b"a new file at the old path")
        os.replace(newcomer, path)
        out = io.BytesIO()
        try:
            with pytest.raises(ValueError, match=re.escape(str(path))):
                AFTER_CLOSE[op](blob, out)
            assert out.getvalue() == b""
        finally:
            if kind == "owned":
                path.unlink(missing_ok=True)


@pytest.mark.requires("file-backed")
class TestCopies:
    DATA = b"weights owned by the original"
    COPIES = pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])

    def owner(self, impl: Implementation, blobs: Blobs) -> FileBackedData:
        """An owned blob that no fixture holds, so dropping it really drops it."""
        return impl.FileBackedData.move_from(str(blobs.file(self.DATA)))

    @clause("FBD-COPY-1")
    @COPIES
    def test_dropping_the_original_keeps_the_copy_readable(
        self, impl: Implementation, blobs: Blobs, copier: Copier
    ) -> None:
        original = self.owner(impl, blobs)
        duplicate = copier(original)
        try:
            del original
            gc.collect()
            assert outcome(duplicate.to_bytes) == self.DATA
        finally:
            duplicate.close()

    @clause("FBD-COPY-1")
    @COPIES
    def test_copy_never_reads_a_file_that_replaced_the_closed_original(
        self, impl: Implementation, blobs: Blobs, copier: Copier
    ) -> None:
        original = self.owner(impl, blobs)
        path = Path(impl.path_of(original))
        duplicate = copier(original)
        try:
            original.close()
            del original
            gc.collect()
            path.write_bytes(b"a newcomer at the same path")
            result = outcome(duplicate.to_bytes)
            assert result == self.DATA or isinstance(result, (ValueError, OSError)), result
        finally:
            duplicate.close()
            path.unlink(missing_ok=True)

    @clause("FBD-COPY-1")
    @COPIES
    def test_collecting_a_copy_keeps_the_owners_file(
        self, impl: Implementation, blobs: Blobs, copier: Copier
    ) -> None:
        original = self.owner(impl, blobs)
        try:
            duplicate = copier(original)
            del duplicate
            gc.collect()
            assert outcome(original.to_bytes) == self.DATA
        finally:
            original.close()

    CLOSED_THROUGH_A_COPY = ("FBD-CLOSE-2", "FBD-CLOSED-1")
    """A copy may be the owner itself: closing it closes the owner (which then says so and
    refuses reads), and the owner is closed again after."""

    def check_closing_a_copy(self, impl: Implementation, blobs: Blobs, copier: Copier) -> None:
        original = self.owner(impl, blobs)
        try:
            copier(original).close()
            result = outcome(original.to_bytes)
            # Either the copy is the owner itself (now closed), or the owner still has its file.
            assert result == self.DATA or (
                isinstance(result, ValueError) and getattr(original, "closed", None) is True
            ), f"the owner is open but its file is gone: {result!r}"
        finally:
            original.close()

    @clause("FBD-COPY-1")
    @pytest.mark.relies_on(*CLOSED_THROUGH_A_COPY)
    def test_closing_a_shallow_copy_never_deletes_under_an_open_owner(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        self.check_closing_a_copy(impl, blobs, copy.copy)

    @clause("FBD-COPY-1")
    @pytest.mark.relies_on(*CLOSED_THROUGH_A_COPY)
    def test_closing_a_deep_copy_never_deletes_under_an_open_owner(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        self.check_closing_a_copy(impl, blobs, copy.deepcopy)

    @clause("FBD-COPY-1")
    @pytest.mark.relies_on("FBD-CLOSE-1", "FBD-CLOSE-2")  # the copy may be the owner: two closes
    @COPIES
    def test_closing_the_owner_deletes_the_file(
        self, impl: Implementation, blobs: Blobs, copier: Copier
    ) -> None:
        original = self.owner(impl, blobs)
        path = impl.path_of(original)
        duplicate = copier(original)
        try:
            assert os.path.exists(path)
            original.close()
            assert not os.path.lexists(path)
        finally:
            duplicate.close()
            original.close()

    @clause("FBD-COPY-2")
    @pytest.mark.parametrize("kind", KINDS)
    def test_pickle_is_refused(self, impl: Implementation, blobs: Blobs, kind: str) -> None:
        blob = make(kind, blobs, b"stays in this process")
        with pytest.raises(TypeError, match=re.escape(impl.path_of(blob))):
            pickle.dumps(blob)
