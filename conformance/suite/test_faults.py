"""Faults the OS raises while data moves: a full disk, a vanished directory or source, an I/O error
in a read, an output that accepts nothing (spec sections 3.2, 3.3, 3.5 and 3.7).

Every case checks the error and what is left afterwards: the source at its path with its bytes, no
placeholder, the store as it was, the object still open and readable, and no output silently
short. A full disk is a pyfakefs ``set_disk_usage``; tests with the ``fs`` fixture create and close
every object themselves (an object outliving the fake filesystem would be finalized against the
real one). Read errors are injected by wrapping the files ``open()`` returns for the blob's path:
an implementation that reads otherwise sees no fault, and must then give the full contents.
"""

from __future__ import annotations

import builtins
import errno
import hashlib
import io
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from conformance.api import Cord, FileBackedData, Implementation
from conformance.harness.checks import blame, check
from conformance.harness.classes import FullRaw
from conformance.harness.helpers import Blobs, close_all, placeholders, sha, snapshot, zeros_digest
from conformance.harness.observe import unobserved
from conformance.harness.sinks import Looping, StuckSink

clause = pytest.mark.clause

DATA = hashlib.sha256(b"weights").digest() * 4096  # 128 KiB, no two 32-byte blocks alike in a row
"""Blob contents: larger than one small read, so a fault can land part-way."""
FAULT_AFTER = 4096
"""Bytes a faulty file delivers before its reads fail."""
FaultyBlob = Callable[[int], tuple[Path, FileBackedData, list[int]]]
"""The ``faulty_blob`` fixture: a file, its blob and the list of faults, reads failing after n."""


def _digest(data: bytes) -> tuple[int, str]:
    """Length and SHA-256 of ``data``: compared instead of the bytes, whose diff by pytest (difflib)
    takes quadratic time when a broken implementation gets them wrong."""
    return len(data), hashlib.sha256(data).hexdigest()


def _fake_listing(directory: str) -> list[str]:
    return sorted(os.listdir(directory))


def _fake_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# --- a full disk --------------------------------------------------------------------------------


@pytest.mark.requires("file-backed")
class TestFullDisk:
    @clause("FBD-MOVE-1", "FBD-MOVE-4", "FBD-MOVE-5", "FBD-FAULT-1")
    @pytest.mark.relies_on("FBD-MOVE-2")  # the fake fs has the source's directory only
    def test_move_from_on_a_full_disk(self, impl: Implementation, fs: FakeFilesystem) -> None:
        fs.create_file("/data/src.bin", contents=DATA)
        fs.create_dir("/out")
        fs.set_disk_usage(len(DATA))  # not one byte free: a rename needs none, a copy would
        made: list[FileBackedData] = []
        try:
            try:
                made.append(impl.FileBackedData.move_from("/data/src.bin"))
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                assert _fake_listing("/data") == ["src.bin"], "a placeholder was left"
                assert _digest(_fake_bytes("/data/src.bin")) == _digest(DATA)
            else:
                blob = made[0]
                assert _fake_listing("/data") == [os.path.basename(impl.path_of(blob))]
                assert len(blob) == len(DATA)
                assert blob.to_bytes() == DATA
        finally:
            close_all(made)

    @clause("FBD-MOVE-4", "FBD-MOVE-5", "FBD-FAULT-1")
    @pytest.mark.relies_on("FBD-MOVE-2")  # the one creation that fails is the placeholder's there
    def test_no_room_for_the_placeholder(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Creating the placeholder fails with ENOSPC (a directory that cannot grow)."""
        source = blobs.file(DATA, "src.bin")
        real_open = os.open

        def full_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & os.O_CREAT:
                raise OSError(errno.ENOSPC, "No space left on device", path)
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", full_open)
        with pytest.raises(OSError) as raised:
            blobs.move(source)
        monkeypatch.undo()
        assert raised.value.errno == errno.ENOSPC
        assert sorted(p.name for p in tmp_path.iterdir()) == ["src.bin"]
        assert source.read_bytes() == DATA

    @clause("FBD-FAULT-1", "FBD-WRITE-1")
    @pytest.mark.relies_on("FBD-HASH-1")  # the blob is undamaged: its digest is still SHA-256
    @pytest.mark.parametrize(
        "owned",
        # the disk has no room for a copy: a move_from that copies (FBD-MOVE-1) fails first
        [False, pytest.param(True, marks=pytest.mark.relies_on("FBD-MOVE-1"))],
        ids=["borrowed", "owned"],
    )
    def test_write_to_file_on_a_full_disk(
        self, impl: Implementation, fs: FakeFilesystem, owned: bool
    ) -> None:
        fs.create_file("/data/src.bin", contents=DATA)
        fs.create_dir("/out")
        fs.set_disk_usage(len(DATA) + len(DATA) // 2)  # room for half of the copy
        made: list[FileBackedData] = []
        try:
            if owned:
                made.append(impl.FileBackedData.move_from("/data/src.bin"))
            else:
                made.append(impl.FileBackedData("/data/src.bin"))
            blob = made[0]
            with pytest.raises(OSError) as raised, open("/out/model.pte", "wb") as out:
                out.write(b"head")
                blob.write_to_file(out)
            assert raised.value.errno == errno.ENOSPC
            assert len(blob) == len(DATA)
            fs.set_disk_usage(10 * len(DATA))
            assert blob.to_bytes() == DATA, "the blob was damaged by the failed write"
            assert blob.sha256() == hashlib.sha256(DATA).digest()
            source = impl.path_of(blob)
        finally:
            close_all(made)
        if owned:
            check(not os.path.exists(source), "close() left the owned file", "FBD-CLOSE-1")
        else:
            check(os.path.exists(source), "close() deleted a borrowed file", "FBD-INIT-2")

    @clause("FBD-FAULT-1")
    def test_cord_write_to_file_on_a_full_disk(
        self, impl: Implementation, fs: FakeFilesystem
    ) -> None:
        fs.create_file("/data/src.bin", contents=DATA)
        fs.create_dir("/out")
        fs.set_disk_usage(len(DATA) + len(DATA) // 2)
        made: list[FileBackedData] = []
        try:
            made.append(impl.FileBackedData("/data/src.bin"))
            cord = impl.Cord(b"header")
            cord.append(made[0])
            cord.append(b"trailer")
            with pytest.raises(OSError) as raised, open("/out/model.pte", "wb") as out:
                cord.write_to_file(out)
            assert raised.value.errno == errno.ENOSPC
            assert len(cord) == len(DATA) + len(b"headertrailer")
            fs.set_disk_usage(10 * len(DATA))
            assert bytes(cord) == b"header" + DATA + b"trailer"
        finally:
            close_all(made)
        check(os.path.exists("/data/src.bin"), "close() deleted a borrowed file", "FBD-INIT-2")
        assert _digest(_fake_bytes("/data/src.bin")) == _digest(DATA)

    @clause("FBD-FAULT-1", "CORD-WRITE-1")
    def test_a_write_that_fits_is_complete(self, impl: Implementation, fs: FakeFilesystem) -> None:
        """The control: with exactly enough room, the same writes succeed in full."""
        fs.create_file("/data/src.bin", contents=DATA)
        fs.create_dir("/out")
        fs.set_disk_usage(2 * len(DATA) + len(b"header"))
        made: list[FileBackedData] = []
        try:
            made.append(impl.FileBackedData("/data/src.bin"))
            cord = impl.Cord(b"header")
            cord.append(made[0])
            with open("/out/model.pte", "wb") as out:
                cord.write_to_file(out)
        finally:
            close_all(made)
        check(  # written without an error: what it holds is the write's own rule
            _digest(_fake_bytes("/out/model.pte")) == _digest(b"header" + DATA),
            "a write with room enough wrote other contents",
            "CORD-WRITE-1",
        )


# --- a directory or a source that vanishes -------------------------------------------------------


READS: dict[str, Callable[[FileBackedData], object]] = {
    "prefix": lambda blob: blob.prefix(32),
    "sha256": lambda blob: blob.sha256(),
    "to_bytes": lambda blob: blob.to_bytes(),
    "write_to_file": lambda blob: blob.write_to_file(io.BytesIO()),
}


@pytest.mark.requires("file-backed")
class TestVanished:
    @pytest.fixture
    def doomed(self, tmp_path: Path) -> Path:
        """``gone/x.bin``, holding DATA, in a directory of its own that the test removes."""
        directory = tmp_path / "gone"
        directory.mkdir()
        path = directory / "x.bin"
        path.write_bytes(DATA)
        return path

    @clause("FBD-FAULT-2")
    @pytest.mark.parametrize("read", list(READS))
    def test_directory_removed_after_construction(
        self, impl: Implementation, blobs: Blobs, doomed: Path, read: str
    ) -> None:
        path = doomed
        blob = blobs.wrap(path)
        shutil.rmtree(path.parent)
        with pytest.raises(FileNotFoundError) as raised:
            READS[read](blob)
        assert str(path) in str(raised.value), "the error does not name the path"

    @clause("FBD-FAULT-2")
    @pytest.mark.relies_on("FBD-HASH-1")
    @pytest.mark.parametrize(
        "known",
        [  # how a digest is known: supplied and used (FBD-MOVE-7), or computed and cached
            pytest.param("supplied", marks=pytest.mark.relies_on("FBD-MOVE-7")),
            pytest.param("computed", marks=pytest.mark.relies_on("FBD-HASH-2")),
        ],
    )
    def test_a_known_digest_needs_no_file(
        self, impl: Implementation, blobs: Blobs, doomed: Path, known: str
    ) -> None:
        digest = hashlib.sha256(DATA).digest()
        blob = blobs.wrap(doomed, sha256=digest if known == "supplied" else None)
        if known == "computed":
            assert blob.sha256() == digest
        shutil.rmtree(doomed.parent)
        assert blob.sha256() == digest
        with pytest.raises(FileNotFoundError):
            blob.to_bytes()

    @clause("FBD-FAULT-2")
    def test_write_to_file_into_a_vanished_directory_writes_nothing(
        self, impl: Implementation, blobs: Blobs, doomed: Path
    ) -> None:
        blob = blobs.wrap(doomed)
        shutil.rmtree(doomed.parent)
        out = io.BytesIO()
        out.write(b"head")
        with pytest.raises(FileNotFoundError):
            blob.write_to_file(out)
        assert out.getvalue() == b"head", "bytes were written for a file that is gone"

    @clause("FBD-CLOSE-6")
    def test_owner_whose_directory_vanished_closes_quietly(
        self, impl: Implementation, doomed: Path
    ) -> None:
        blob = impl.FileBackedData.move_from(str(doomed))
        shutil.rmtree(doomed.parent)
        blob.close()
        with blame("FBD-CLOSE-2"):  # a second close() of a closed object
            blob.close()

    @clause("FBD-MOVE-4", "FBD-FAULT-1")
    @pytest.mark.relies_on("FBD-MOVE-1", "FBD-MOVE-6")  # the source vanishes at the rename
    def test_source_vanishing_before_the_rename(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        source = blobs.file(DATA, "src.bin")
        real_replace = os.replace
        calls: list[str] = []

        def vanishing_replace(src: Any, dst: Any, **kwargs: Any) -> None:
            calls.append(os.fspath(src))
            if os.fspath(src) == str(source) and source.exists():
                source.unlink()  # someone else removed it after the placeholder was made
            real_replace(src, dst, **kwargs)

        monkeypatch.setattr(os, "replace", vanishing_replace)
        try:
            blobs.move(source)
        except FileNotFoundError:
            pass
        else:
            if not calls:
                unobserved("the implementation made no os.replace the harness could see")
            pytest.fail("move_from took a source that vanished before its rename")
        finally:
            monkeypatch.undo()
        assert placeholders(tmp_path) == []
        assert list(tmp_path.iterdir()) == []


# --- an I/O error while reading ------------------------------------------------------------------


class _FaultyFile:
    """A file whose reads fail with EIO once ``after`` bytes have been read from it."""

    def __init__(self, real: Any, after: int, faults: list[int]) -> None:
        self._real = real
        self._left = after
        self._faults = faults

    def _fail(self) -> NoReturn:
        self._faults.append(errno.EIO)
        raise OSError(errno.EIO, "Input/output error")

    def _allow(self, n: int | None) -> int:
        if self._left <= 0:
            self._fail()
        return self._left if n is None or n < 0 else min(n, self._left)

    def read(self, n: int | None = -1) -> bytes:
        data: bytes = self._real.read(self._allow(n))
        self._left -= len(data)
        if (n is None or n < 0) and self._real.read(1):
            self._fail()  # a read to the end meets the fault before the end
        return data

    def read1(self, n: int = -1) -> bytes:
        return self.read(n)

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: Any) -> int:
        with memoryview(buffer) as raw:
            size = raw.nbytes
        if self._left <= 0:
            del buffer  # the traceback keeps this frame: it must not keep the caller's buffer
            self._fail()
        with memoryview(buffer) as raw, raw.cast("B") as view, view[: self._allow(size)] as part:
            n: int = self._real.readinto(part) or 0
        self._left -= n
        return n

    def readinto1(self, buffer: Any) -> int:
        return self.readinto(buffer)

    def __enter__(self) -> _FaultyFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()

    def __iter__(self) -> Iterator[bytes]:
        raise OSError(errno.EIO, "Input/output error")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _through_faults(call: Callable[[], object], faults: list[int]) -> tuple[bool, object]:
    """``call()`` while reads fail: (True, its result) if it succeeded, which it may only where no
    fault was injected (else an I/O error was swallowed); (False, None) if it raised EIO."""
    try:
        result = call()
    except OSError as exc:
        assert exc.errno == errno.EIO, exc
        return False, None
    assert not faults, "an I/O error was swallowed"
    return True, result


@pytest.mark.requires("file-backed")
class TestReadError:
    @clause("FBD-FAULT-1")
    @pytest.mark.relies_on("FBD-HASH-1")  # no failed read was cached: the digest is still SHA-256
    @pytest.mark.parametrize("after", [0, FAULT_AFTER], ids=["at-once", "part-way"])
    @pytest.mark.parametrize("read", ["sha256", "to_bytes"])
    def test_read_error_propagates(
        self,
        impl: Implementation,
        faulty_blob: FaultyBlob,
        monkeypatch: pytest.MonkeyPatch,
        read: str,
        after: int,
    ) -> None:
        path, blob, faults = faulty_blob(after)
        done, result = _through_faults(lambda: READS[read](blob), faults)
        if done:
            assert result in (DATA, hashlib.sha256(DATA).digest())
        monkeypatch.undo()
        assert blob.sha256() == hashlib.sha256(DATA).digest(), "a failed read was cached"
        assert blob.to_bytes() == DATA
        assert path.read_bytes() == DATA

    @clause("FBD-FAULT-1")
    def test_prefix_read_error_propagates(
        self, impl: Implementation, faulty_blob: FaultyBlob, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        _, blob, faults = faulty_blob(0)
        done, result = _through_faults(lambda: blob.prefix(32), faults)
        if done:
            assert result == DATA[:32]
        monkeypatch.undo()
        assert blob.prefix(32) == DATA[:32]

    @clause("FBD-FAULT-1", "FBD-WRITE-1")
    @pytest.mark.relies_on("FBD-HASH-1")  # the blob is undamaged: its digest is still SHA-256
    @pytest.mark.parametrize("sink", ["bytesio", "file"])
    @pytest.mark.parametrize(
        "owner",  # a Cord's output shows the blob's only if it writes its pieces in order
        ["blob", pytest.param("cord", marks=pytest.mark.relies_on("CORD-WRITE-1"))],
    )
    def test_write_to_file_read_error_is_not_a_short_output(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        faulty_reads: Callable[[Path, int], list[int]],
        sink: str,
        owner: str,
    ) -> None:
        source = blobs.file(DATA)
        blob = blobs.moved(DATA) if owner == "blob" else blobs.wrap(source)
        path = blobs.path(blob)
        expected = DATA if owner == "blob" else b"header" + DATA + b"trailer"
        faults = faulty_reads(path, FAULT_AFTER)
        out_path = tmp_path / "out.pte"
        error: OSError | None = None
        with out_path.open("wb") if sink == "file" else io.BytesIO() as out:
            try:
                if owner == "blob":
                    blob.write_to_file(out)
                else:
                    cord = impl.Cord(b"header")
                    cord.append(blob)
                    cord.append(b"trailer")
                    cord.write_to_file(out)
            except OSError as exc:
                error = exc
            written = out.getvalue() if isinstance(out, io.BytesIO) else None
        monkeypatch.undo()
        if written is None:
            written = out_path.read_bytes()
        if error is not None:
            assert error.errno == errno.EIO, error
        else:
            assert not faults, "an I/O error was swallowed"
            assert written == expected, "a short output without an error"
        assert blob.to_bytes() == DATA
        assert blob.sha256() == hashlib.sha256(DATA).digest()

    @clause("FBD-FAULT-1", "NDS-ATOMIC-1")
    def test_read_error_while_adding_leaves_the_store_unchanged(
        self, impl: Implementation, faulty_blob: FaultyBlob, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A blob with the fingerprint of a stored one must be hashed; the hash fails."""
        twin = DATA[:-1] + bytes([DATA[-1] ^ 1])  # same length and first 32 bytes, other bytes
        store = impl.NamedDataStore()
        store.add_named_data("first", twin)
        before = snapshot(store)
        _, blob, faults = faulty_blob(FAULT_AFTER)
        done, _ = _through_faults(lambda: store.add_named_data("second", blob), faults)
        if not done:
            assert snapshot(store) == before
        monkeypatch.undo()
        store.add_named_data("third", blob)
        output = store.get_named_data_store_output()
        index = output.pte_data["third"].buffer_index
        kept = output.buffers[index]
        check(  # a twin by fingerprint is told apart by its digest
            kept is blob or bytes(kept) == DATA,  # type: ignore[arg-type]  # a bytes buffer
            "the blob shares the buffer of a blob with its fingerprint and other contents",
            "NDS-DEDUP-2",
        )

    @pytest.fixture
    def faulty_reads(self, monkeypatch: pytest.MonkeyPatch) -> Callable[[Path, int], list[int]]:
        """``faulty_reads(path, after)``: from now on, files opened for reading at ``path`` fail
        with EIO after ``after`` bytes; returns the list of faults raised so far."""

        def install(path: Path, after: int) -> list[int]:
            real_open = builtins.open
            faults: list[int] = []
            target = os.path.realpath(path)

            def faulty_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
                opened = real_open(file, mode, *args, **kwargs)
                if (
                    isinstance(file, (str, os.PathLike))
                    and "r" in mode
                    and "+" not in mode
                    and os.path.realpath(file) == target
                ):
                    return _FaultyFile(opened, after, faults)
                return opened

            monkeypatch.setattr(builtins, "open", faulty_open)
            return faults

        return install

    @pytest.fixture
    def faulty_blob(
        self, blobs: Blobs, faulty_reads: Callable[[Path, int], list[int]]
    ) -> FaultyBlob:
        """``faulty_blob(after)``: a file of DATA, a borrowing blob of it, and the list of faults
        raised so far by reads of the file, which fail with EIO after ``after`` bytes."""

        def make(after: int) -> tuple[Path, FileBackedData, list[int]]:
            path = blobs.file(DATA)
            blob = blobs.wrap(path)
            return path, blob, faulty_reads(path, after)

        return make


# --- an output that accepts nothing ---------------------------------------------------------------


def _check_refused_by_a_stuck_sink(
    source: FileBackedData | Cord, room: int, size: int | None = None
) -> None:
    """``source.write_to_file`` into a sink that takes ``room`` bytes, then nothing, raises an
    ``OSError``: it neither retries without end nor returns as if all of its ``size`` bytes (by
    default its ``len()``, asked only then) were written."""
    sink = StuckSink(room)
    try:
        source.write_to_file(sink)
    except Looping:
        pytest.fail("write_to_file retried a sink that accepts nothing without end")
    except OSError:
        pass
    else:
        size = len(source) if size is None else size
        pytest.fail(f"write_to_file returned after writing {len(sink.data)} of {size}")


@pytest.mark.requires("file-backed")
class TestOutputAcceptsNothing:
    @clause("FBD-FAULT-3")
    @pytest.mark.parametrize("room", [0, FAULT_AFTER])
    def test_blob_into_a_sink_that_takes_nothing(
        self, impl: Implementation, blobs: Blobs, room: int
    ) -> None:
        blob = blobs.moved(DATA)
        _check_refused_by_a_stuck_sink(blob, room, len(DATA))
        assert blob.to_bytes() == DATA

    @clause("FBD-FAULT-3")
    @pytest.mark.parametrize("room", [0, 3, len(b"header") + FAULT_AFTER])
    def test_cord_into_a_sink_that_takes_nothing(
        self, impl: Implementation, blobs: Blobs, room: int
    ) -> None:
        cord = impl.Cord(b"header")
        cord.append(blobs.moved(DATA))
        _check_refused_by_a_stuck_sink(cord, room)


# --- full non-blocking outputs, outputs that are none (FBD-FAULT-3), sparse files (FBD-WRITE-3) ---

_SPARSE = 64 << 20
_EDGE = b"edge" * 1024  # 4 KiB of data at each end, a 64 MiB hole between


def _allocated(path: Path) -> int:
    return os.stat(path).st_blocks * 512


@pytest.mark.requires("file-backed")
class TestOddOutputs:
    """Outputs that take nothing or are no output, and sparse blobs written into real files."""

    @clause("FBD-FAULT-3")
    @pytest.mark.parametrize("step", [1 << 20, 1000], ids=["whole-chunks", "short-writes"])
    @pytest.mark.parametrize("how", ["file", "cord"])
    def test_a_full_non_blocking_output_raises_naming_it(
        self, impl: Implementation, blobs: Blobs, step: int, how: str
    ) -> None:
        data = os.urandom(300_000)
        blob = blobs.wrap(blobs.file(data))
        sink = FullRaw(room=20_000, step=step)
        with pytest.raises(BlockingIOError) as raised:
            if how == "file":
                blob.write_to_file(sink)
            else:
                impl.Cord(blob).write_to_file(sink)
        assert repr(sink) in str(raised.value), "the error does not name the output"
        assert bytes(sink.data) == data[: len(sink.data)]

    @clause("FBD-FAULT-3")
    @pytest.mark.parametrize("how", ["file", "cord"])
    @pytest.mark.parametrize("size", [0, 10])
    def test_no_output_at_all_is_a_type_error_naming_it(
        self, impl: Implementation, blobs: Blobs, how: str, size: int
    ) -> None:
        blob = blobs.wrap(blobs.file(b"x" * size))
        for outfile in (None, object(), b"bytes"):
            with pytest.raises(TypeError, match=re.escape(repr(outfile))):
                if how == "file":
                    blob.write_to_file(outfile)
                else:
                    impl.Cord(blob).write_to_file(outfile)

    @clause("FBD-WRITE-3")
    @pytest.mark.parametrize("how", ["file", "cord"])
    @pytest.mark.parametrize("end", ["data", "hole"])
    def test_holes_stay_holes_in_a_real_file(
        self, impl: Implementation, blobs: Blobs, how: str, end: str
    ) -> None:
        tail = _EDGE if end == "data" else b""
        source = blobs.sparse(_SPARSE, head=_EDGE, tail=tail)
        if _allocated(source) > 1 << 20:
            pytest.skip("this filesystem does not keep holes")
        blob = blobs.wrap(source)
        out_path = blobs.directory / "out.pte"
        with open(out_path, "wb") as out:
            out.write(b"<")
            if how == "file":
                blob.write_to_file(out)
            else:
                impl.Cord(blob).write_to_file(out)
        assert out_path.stat().st_size == 1 + _SPARSE
        allocated = _allocated(out_path)
        assert allocated < 1 << 20, f"the output allocates {allocated} bytes for 8 KiB of data"
        with open(out_path, "rb") as written:
            assert written.read(1) == b"<"
            assert sha(written.read()) == zeros_digest(_SPARSE, _EDGE, tail)
        out_path.unlink()

    @clause("FBD-WRITE-3")
    def test_holes_are_zeros_over_existing_data(self, impl: Implementation, blobs: Blobs) -> None:
        """An output with data after its position gets the zeros written, not skipped."""
        blob = blobs.wrap(blobs.sparse(1 << 20, head=_EDGE, tail=_EDGE))
        out_path = blobs.file(b"\xff" * (2 << 20), name="out.pte")
        with open(out_path, "r+b") as out:
            blob.write_to_file(out)
        with open(out_path, "rb") as written:
            assert sha(written.read(1 << 20)) == zeros_digest(1 << 20, _EDGE, _EDGE)
            assert written.read() == b"\xff" * (1 << 20)
