"""The input-class matrix of the core read, write, hash, prefix and dedup paths: every
blob class of :mod:`conformance.harness.input_classes` (sizes on each boundary, sparse files with
a hole at either end or in the middle) through each path, as a blob, as a Cord piece and as a
store's blob, with digests supplied and computed, into every sink. All of it is core: a path that
loses data for one class of input breaks the clause whose text promises that data, whatever
profile a test of a finer guarantee (holes kept as holes) belongs to. docs/coverage.md lists which
test covers which row."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.checks import check
from conformance.harness.classes import (
    MID_SECOND,
    MTIME_STEPS,
    PATH_FORMS,
    SECOND,
    STR_METHODS,
    FullRaw,
    PathForm,
    kept_mtime_steps,
    lying_str,
    path_forms,
    restamped,
    working_directory,
)
from conformance.harness.helpers import Blobs, duplicate_message, placeholders, sha
from conformance.harness.input_classes import (
    BLOB_CLASSES,
    CHUNKS,
    READ_BUFFER,
    SHORT_WRITE,
    SINKS,
    WRITE_CLASSES,
    BlobClass,
)
from conformance.harness.measure import MiB
from conformance.harness.reuse import inode_reuse

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on
requires = pytest.mark.requires

Test = TypeVar("Test", bound=Callable[..., None])
CLASSES = pytest.mark.parametrize("shape", BLOB_CLASSES, ids=[c.name for c in BLOB_CLASSES])
WRITTEN = pytest.mark.parametrize("shape", WRITE_CLASSES, ids=[c.name for c in WRITE_CLASSES])
HEADER = b"<header>"
TRAILER = b"<trailer>"


def _same(got: bytes, want: bytes, what: str, clause_id: str) -> None:
    """Fail ``clause_id`` unless ``got == want``, saying where they part (a shift or a loss shows
    at a glance); the place is looked for only on a failure."""
    if got == want:
        return
    at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
    where = "" if at is None else f", first difference at offset {at}"
    check(False, f"{what}: {len(got)} bytes (due {len(want)}){where}", clause_id)


def _file(blobs: Blobs, shape: BlobClass) -> Path:
    """The class's file, written in the test's directory under the class's name."""
    return shape.write(blobs.directory / f"{shape.name}.bin")


def _written(blobs: Blobs, shape: BlobClass) -> tuple[bytes, Path]:
    """The class's contents, and its file holding them (:func:`_file`)."""
    return shape.data(), _file(blobs, shape)


def _blob(blobs: Blobs, shape: BlobClass, sha256: bytes | None = None) -> FileBackedData:
    return blobs.wrap(_file(blobs, shape), sha256=sha256)


def _check_each_raises(
    calls: dict[str, Callable[[], object]], error: type[Exception], failed: str, clause_id: str
) -> None:
    """Each of ``calls`` (by name) raises ``error``; one that returns fails ``clause_id`` with
    its name and ``failed`` (what its returning means)."""
    for name, call in calls.items():
        try:
            call()
        except error:
            continue
        check(False, f"{name} {failed}", clause_id)


def _prefix_lengths(size: int) -> list[int]:
    """Around the fingerprint, the read buffer and each chunk, and the blob's own end."""
    around = {0, 1, 31, 32, 33, READ_BUFFER + 1, *(c + 1 for c in CHUNKS), max(size - 1, 0), size}
    return sorted({n for n in around if n <= size} | {size + 1})


@requires("file-backed")
class TestReadsOfEveryClass:
    @clause("FBD-INIT-1", "FBD-READ-1", "FBD-READ-2", "FBD-HASH-1", "CORD-BYTES-1")
    @CLASSES
    def test_prefix_to_bytes_digest_and_cord_bytes(
        self, impl: Implementation, blobs: Blobs, shape: BlobClass
    ) -> None:
        data = shape.data()
        blob = _blob(blobs, shape)
        check(len(blob) == shape.size, f"len() is {len(blob)}, not {shape.size}", "FBD-INIT-1")
        for n in _prefix_lengths(shape.size):
            got = blob.prefix(n)
            _same(got, data[:n], f"prefix({n})", "FBD-READ-1")
        whole = blob.to_bytes()
        _same(whole, data, "to_bytes()", "FBD-READ-2")
        check(blob.sha256() == sha(data), "sha256() is not the contents' digest", "FBD-HASH-1")
        for pieces in ([blob], [HEADER, blob, b"", TRAILER]):
            cord = impl.Cord()
            for piece in pieces:
                cord.append(piece)
            want = b"".join(data if p is blob else p for p in pieces)  # type: ignore[misc]  # bytes pieces
            got = bytes(cord)
            _same(got, want, "bytes(cord)", "CORD-BYTES-1")

    @clause("FBD-FAULT-2")
    @WRITTEN
    def test_a_removed_file_of_every_size_is_missing(
        self, impl: Implementation, blobs: Blobs, shape: BlobClass
    ) -> None:
        """Nothing is special about a size here: an empty file that is gone is as missing as a
        large one (a shortcut for empty blobs answers without looking)."""
        path = _file(blobs, shape)
        blob = blobs.wrap(path)
        path.unlink()
        calls: dict[str, Callable[[], object]] = {
            "prefix(32)": lambda: blob.prefix(32),
            "to_bytes()": blob.to_bytes,
            "sha256()": blob.sha256,
            "write_to_file()": lambda: blob.write_to_file(io.BytesIO()),
        }
        failed = f"of a removed {shape.size}-byte file did not raise"
        _check_each_raises(calls, FileNotFoundError, failed, "FBD-FAULT-2")

    @clause("FBD-MOVE-7")
    @CLASSES
    def test_a_supplied_digest_is_the_digest(
        self, impl: Implementation, blobs: Blobs, shape: BlobClass
    ) -> None:
        blobs.require_hashing()
        supplied = hashlib.sha256(b"not the contents " + shape.name.encode()).digest()
        assert _blob(blobs, shape, sha256=supplied).sha256() == supplied


@requires("file-backed")
class TestEmptyPieces:
    @clause("CORD-INIT-2", "CORD-APPEND-1", "FBD-FAULT-2")
    @pytest.mark.parametrize("how", ["Cord(piece)", "append"])
    def test_an_empty_file_piece_is_held(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        """Held, so read by ``bytes(cord)`` (not by ``write_to_file``, whose checks are
        CORD-WRITE-3's): a Cord that dropped the piece reads as empty though its file is gone."""
        path = blobs.file(b"", "empty.bin")
        blob = blobs.wrap(path)
        cord = impl.Cord(blob) if how == "Cord(piece)" else impl.Cord()
        if how == "append":
            cord.append(blob)
        path.unlink()
        try:  # the premise: the piece itself knows its file is gone
            blob.to_bytes()
            check(False, "to_bytes() of a removed empty file did not raise", "FBD-FAULT-2")
        except FileNotFoundError:
            pass
        try:
            bytes(cord)
        except FileNotFoundError:
            return
        clause_id = "CORD-INIT-2" if how == "Cord(piece)" else "CORD-APPEND-1"
        check(False, f"{how} of an empty file does not hold it: its loss went unseen", clause_id)


def _write(impl: Implementation, blob: FileBackedData, how: str, out: object) -> None:
    if how == "blob":
        blob.write_to_file(out)
        return
    cord = impl.Cord(HEADER)  # the blob is the last piece, after one that moved the position
    cord.append(b"")
    cord.append(blob)
    cord.write_to_file(out)


def _write_into(
    impl: Implementation, blobs: Blobs, tmp_path: Path, shape: BlobClass, how: str, sinks: Any
) -> None:
    """Write ``shape`` (as a blob, or as a Cord's last piece) into each of ``sinks`` and compare
    the whole output with what the sink must hold."""
    data = shape.data()
    blob = _blob(blobs, shape)
    if how == "cord":  # the premise: the piece alone writes right, so the Cord is what failed
        _write_each(impl, blob, data, "blob", tmp_path, sinks)
    _write_each(impl, blob, data, how, tmp_path, sinks)


def _write_each(
    impl: Implementation, blob: FileBackedData, data: bytes, how: str, tmp_path: Path, sinks: Any
) -> None:
    written = data if how == "blob" else HEADER + data
    blamed = "FBD-WRITE-1" if how == "blob" else "CORD-WRITE-1"
    for sink in sinks:
        head = sink.existing(len(written))
        with sink.open(tmp_path, len(written)) as (out, result):
            _write(impl, blob, how, out)
        got, want = result(), sink.expected(head, written)
        if not written and got == head:
            continue  # nothing written past the end: whether that extends the file is open
        _same(got, want, f"into {sink.name}", blamed)


HOW = pytest.mark.parametrize("how", ["blob", "cord"])
SHORT = [c for c in WRITE_CLASSES if c.size > SHORT_WRITE]
SHORTENED = pytest.mark.parametrize("shape", SHORT, ids=[c.name for c in SHORT])
"""The classes a sink taking at most SHORT_WRITE bytes a call takes in more than one call."""


@requires("file-backed")
class TestWritesOfEveryClassIntoEverySink:
    @clause("FBD-WRITE-1", "CORD-WRITE-1")
    @WRITTEN
    @HOW
    def test_the_output_holds_exactly_the_contents(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, shape: BlobClass, how: str
    ) -> None:
        _write_into(impl, blobs, tmp_path, shape, how, [s for s in SINKS if s.kind != "short"])

    @clause("FBD-WRITE-1", "CORD-WRITE-1")
    @SHORTENED
    @HOW
    def test_a_short_writing_sink_gets_every_class_whole(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, shape: BlobClass, how: str
    ) -> None:
        _write_into(impl, blobs, tmp_path, shape, how, [s for s in SINKS if s.kind == "short"])


def _supplied(blobs: Blobs, path: Path, digest: bytes) -> FileBackedData:
    """A blob given ``digest``, checked to answer it first: a store that misjudges it because
    ``sha256()`` ignores the digest is FBD-MOVE-7's failure, not the store's."""
    blob = blobs.wrap(path, sha256=digest)
    check(blob.sha256() == digest, "sha256() is not the supplied digest", "FBD-MOVE-7")
    return blob


def _computed(blobs: Blobs, path: Path, digest: bytes) -> FileBackedData:
    """A blob checked to hash to ``digest`` first: a store that misjudges it because ``sha256()``
    is wrong is FBD-HASH-1's failure, not the store's."""
    blob = blobs.wrap(path)
    check(blob.sha256() == digest, "sha256() is not the contents' digest", "FBD-HASH-1")
    return blob


@requires("file-backed")
class TestDedupOfEveryClass:
    @clause(
        "NDS-DEDUP-2", "NDS-DEDUP-5", "NDS-DEDUP-6", "NDS-DEDUP-7", "NDS-DEDUP-10", "FBD-MOVE-7"
    )
    @CLASSES
    def test_representations_and_digests_share_or_not(
        self, impl: Implementation, blobs: Blobs, shape: BlobClass
    ) -> None:
        data, path = _written(blobs, shape)
        right, wrong = sha(data), sha(b"wrong " + data[:64])
        store = impl.NamedDataStore()
        store.add_named_data("bytes", data)
        store.add_named_data("computed", _computed(blobs, path, right))
        store.add_named_data("supplied", blobs.wrap(path, sha256=right))
        store.add_named_data("wrong", _supplied(blobs, path, wrong))
        if shape.size:
            other = bytearray(data)
            other[-1] ^= 0xFF  # same length and, above 32 bytes, the same first 32 bytes
            store.add_named_data("other", blobs.wrap(blobs.file(bytes(other), "other.bin")))
        out = store.get_named_data_store_output()
        index = {key: entry.buffer_index for key, entry in out.pte_data.items()}
        empty = "NDS-DEDUP-7" if shape.size == 0 else "NDS-DEDUP-6"
        check(index["computed"] == index["bytes"], "a file blob did not share bytes' buffer", empty)
        check(
            index["supplied"] == index["bytes"],
            "a blob with its right digest supplied did not share the buffer",
            "NDS-DEDUP-7" if shape.size == 0 else "NDS-DEDUP-10",
        )
        check(  # NDS-DEDUP-7 defers an empty blob's supplied digest to NDS-DEDUP-10
            index["wrong"] != index["bytes"],
            "a blob whose supplied digest differs shared the buffer of other contents",
            "NDS-DEDUP-10",
        )
        if shape.size:
            check(index["other"] != index["bytes"], "different contents share", "NDS-DEDUP-2")
        check(
            out.buffers[index["bytes"]] is data, "the first blob is not the buffer", "NDS-DEDUP-5"
        )

    @clause("NDS-KEY-2", "NDS-KEY-3", "NDS-KEY-4", "FBD-MOVE-7", "FBD-HASH-1")
    @CLASSES
    def test_a_key_added_again_is_judged_by_length_and_digest(
        self, impl: Implementation, blobs: Blobs, shape: BlobClass
    ) -> None:
        data, path = _written(blobs, shape)
        store = impl.NamedDataStore()
        store.add_named_data("key", data)
        # equal contents: no error, no buffer
        store.add_named_data("key", _computed(blobs, path, sha(data)))
        check(
            len(store.get_named_data_store_output().buffers) == 1,
            "re-adding equal contents added a buffer",
            "NDS-KEY-2",
        )
        try:  # the premise: other contents under the key are refused
            store.add_named_data("key", data + b"!")
            check(False, "other contents under a present key were accepted", "NDS-KEY-3")
        except ValueError:
            pass
        wrong = sha(b"wrong " + data[:64])
        try:
            store.add_named_data("key", _supplied(blobs, path, wrong))
        except ValueError as exc:
            message = duplicate_message("key", shape.size, shape.size)
            check(re.search(message, str(exc)), f"the error says {exc}", "NDS-KEY-3")
        else:
            check(False, "equal contents with another supplied digest were the same", "NDS-KEY-4")


# --- modification times at every step the filesystem keeps --------------------------------------

STEPS = pytest.mark.parametrize("step", MTIME_STEPS, ids=[f"{s}ns" for s in MTIME_STEPS])
OLD = b"the blob's own contents" * 64
NEW = b"another file's contents" * 64  # the same size


def _keeps(directory: Path, step: int) -> None:
    """Skip a step the filesystem of ``directory`` cannot show (its times are coarser)."""
    if step not in kept_mtime_steps(directory):
        pytest.skip(f"the filesystem of {directory} does not keep a {step} ns step of a time")


def _stamped(
    blobs: Blobs, name: str, step: int, owned: bool
) -> tuple[FileBackedData, Path, dict[str, Callable[[], object]]]:
    """Unless the filesystem cannot show ``step`` (then skipped): a blob of ``OLD`` at ``name``
    stamped ``MID_SECOND``, moved (``owned``) or wrapped; its path, and its reads by name."""
    _keeps(blobs.directory, step)
    source = blobs.file(OLD, name)
    os.utime(source, ns=(MID_SECOND, MID_SECOND))
    blob = blobs.move(source) if owned else blobs.wrap(source)
    reads: dict[str, Callable[[], object]] = {
        "to_bytes()": blob.to_bytes,
        "prefix()": lambda: blob.prefix(len(OLD)),
        "sha256()": blob.sha256,
        "write_to_file()": lambda: blob.write_to_file(io.BytesIO()),
    }
    return blob, blobs.path(blob), reads


def each_step_borrowed_and_owned(test: Test) -> Test:
    """Parametrize a test by ``step`` (STEPS) and by ``owned``: the blob wrapped, or moved."""
    owners = pytest.mark.parametrize("owned", [False, True], ids=["borrowed", "owned"])
    parametrized: Test = STEPS(owners(test))
    return parametrized


def _within_its_second(mtime_ns: int, step: int) -> int:
    """``mtime_ns`` moved by ``step``, forward or back, whichever stays in its second (below a
    second's step, one of them does): a time kept in whole seconds does not move."""
    if mtime_ns % SECOND + step < SECOND:
        return mtime_ns + step
    return mtime_ns - step


@requires("low-memory-weights")
class TestHandedDigestAtEveryStep:
    @clause("HOOK-LOW-4")
    @relies_on("FBD-HASH-1")  # a stale digest is seen against SHA-256 of the contents
    @STEPS
    def test_a_blob_rewritten_a_step_later_is_rehashed(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, step: int
    ) -> None:
        """Rewritten in place to its size and stamped ``step`` ns from the time it was hashed:
        another modification time (HOOK-LOW-4: ``st_mtime_ns``), so its digest is recomputed."""
        blobs.require_hashing()
        _keeps(tmp_path, step)
        low = impl.low_memory
        assert low is not None
        so_path = tmp_path / "model.wrapper.so"
        so_path.write_bytes(b"\x7fELF compiled model")
        blob_path = low.materialize(str(so_path), [OLD])
        hashed = os.stat(blob_path)
        now = NEW.ljust(hashed.st_size, b"!")
        restamped(Path(blob_path), now, _within_its_second(hashed.st_mtime_ns, step))
        data, digest = low.load(blob_path)
        blobs.track(cast(FileBackedData, data))
        check(
            digest == hashlib.sha256(now).hexdigest(),
            f"a blob rewritten and stamped {step} ns from the hashed one was given the old digest",
            "HOOK-LOW-4",
        )


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")
@requires("file-backed")
class TestIdentityAtEveryStep:
    @clause("FBD-IDENT-1")
    @each_step_borrowed_and_owned
    def test_a_reused_inode_stamped_a_step_later_is_another_file(
        self, impl: Implementation, blobs: Blobs, step: int, owned: bool
    ) -> None:
        """A new file of the same size that the kernel gave the deleted file's inode, stamped
        ``step`` ns after it: its ``st_mtime_ns`` is its own, so it is not read as the blob nor
        removed by the blob's release (FBD-IDENT-1)."""
        blob, path, reads = _stamped(blobs, "stamped.bin", step, owned)
        old = os.lstat(path)
        path.unlink()
        path.write_bytes(NEW)
        os.utime(path, ns=(MID_SECOND + step, MID_SECOND + step))
        new = os.lstat(path)
        try:
            with inode_reuse((old.st_dev, old.st_ino), (new.st_dev, new.st_ino)):
                failed = f"read a file stamped {step} ns later"
                _check_each_raises(reads, OSError, failed, "FBD-IDENT-1")
                if owned:
                    blob.close()
                    check(
                        path.exists(),
                        f"release removed a file stamped {step} ns after the owned one",
                        "FBD-IDENT-1",
                    )
        finally:
            path.unlink(missing_ok=True)

    @clause("FBD-CHANGE-1")
    @each_step_borrowed_and_owned
    def test_a_file_rewritten_in_place_and_stamped_a_step_later_is_changed(
        self, impl: Implementation, blobs: Blobs, step: int, owned: bool
    ) -> None:
        """Rewritten in place to its size since it was wrapped, and stamped ``step`` ns after
        the time it had: another ``st_mtime_ns``, so every read raises an OSError naming the
        path (FBD-CHANGE-1, FBD-IDENT-1), whatever the step."""
        blob, path, reads = _stamped(blobs, "rewritten.bin", step, owned)
        restamped(path, NEW, MID_SECOND + step)
        try:
            for name, read in reads.items():
                try:
                    read()
                except OSError as exc:
                    check(str(path) in str(exc), f"{name}: {exc} names no path", "FBD-CHANGE-1")
                    continue
                check(
                    False,
                    f"{name} read a file rewritten and stamped {step} ns later",
                    "FBD-CHANGE-1",
                )
        finally:
            blob.close()  # a changed owned file is no longer the owned one (FBD-IDENT-1)
            path.unlink(missing_ok=True)


# --- raw outputs that take nothing ----------------------------------------------------------------

FILLED = [c for c in WRITE_CLASSES if c.size]


class _Endless(Exception):
    """The output was asked again and again to take bytes it refuses."""


class _Counted(FullRaw):
    """A :class:`FullRaw` that raises :class:`_Endless` when asked 1000 times after it is full."""

    def __init__(self, room: int, step: int) -> None:
        super().__init__(room, step)
        self.refused = 0

    def write(self, data: Any) -> int | None:
        taken = super().write(data)
        if taken is None:
            self.refused += 1
            if self.refused > 1000:
                raise _Endless
        return taken


def _never_silently_short(write: Callable[[Any], None], size: int, clause_id: str) -> None:
    """``write`` into raw outputs that fill up before ``size`` bytes (at once, or part-way, in
    whole or short writes) raises: a ``None`` from a raw output took nothing (FBD-WRITE-1), so
    returning normally leaves the output short."""
    for room in sorted({0, size // 2}):
        for step in (MiB, SHORT_WRITE):
            out = _Counted(room, step)
            try:
                write(out)
            except _Endless:
                check(False, f"a full raw output (room {room}) was retried without end", clause_id)
            except OSError:
                continue
            check(
                False,
                f"returned normally having written {len(out.data)} of {size} bytes into a raw "
                f"output whose write returned None (room {room}, step {step})",
                clause_id,
            )


@requires("file-backed")
class TestRawOutputsThatFillUp:
    @clause("FBD-WRITE-1", "CORD-WRITE-1")
    @pytest.mark.parametrize("shape", FILLED, ids=[c.name for c in FILLED])
    @HOW
    def test_a_blob_is_never_silently_short(
        self, impl: Implementation, blobs: Blobs, shape: BlobClass, how: str
    ) -> None:
        blob = _blob(blobs, shape)
        size = shape.size + (0 if how == "blob" else len(HEADER))
        blamed = "FBD-WRITE-1" if how == "blob" else "CORD-WRITE-1"
        _never_silently_short(lambda out: _write(impl, blob, how, out), size, blamed)


class TestRawOutputsThatFillUpWithBytes:
    @clause("CORD-WRITE-1")
    @pytest.mark.parametrize("size", [1, 33, SHORT_WRITE + 1, MiB + 1])
    def test_a_cord_of_bytes_is_never_silently_short(self, impl: Implementation, size: int) -> None:
        cord = impl.Cord(HEADER)
        cord.append(bytes(range(256)) * (size // 256) + bytes(size % 256))
        cord.append(TRAILER)
        _never_silently_short(cord.write_to_file, len(cord), "CORD-WRITE-1")


# --- every form of a path -------------------------------------------------------------------------

FORMS = pytest.mark.parametrize("form", PATH_FORMS, ids=[f.name for f in PATH_FORMS])
WRAPPED = b"the file the path names" * 8
DECOY = b"a file of that name where the path's text leads" * 8


def _formed(tmp_path: Path, form: PathForm) -> tuple[Path, str, Path]:
    """The file, in ``home/sub``, a decoy of its name in ``home`` (where ``deep/..`` leads by
    its text), the path naming the file in ``form`` and the directory to give it in."""
    home = tmp_path / "forms"
    home.mkdir()
    target = path_forms(home) / "blob.bin"
    target.write_bytes(WRAPPED)
    (home / "blob.bin").write_bytes(DECOY)
    text, cwd = form.of(home, "blob.bin")
    return target, text, cwd


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
@requires("file-backed")
class TestEveryFormOfPath:
    @clause("FBD-INIT-1", "FBD-INIT-3")
    @FORMS
    @pytest.mark.parametrize("cleanup", [False, True], ids=["borrowed", "owned"])
    def test_the_constructor_wraps_the_file_the_path_names(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, form: PathForm, cleanup: bool
    ) -> None:
        target, text, cwd = _formed(tmp_path, form)
        with working_directory(cwd):
            blob = blobs.track(impl.FileBackedData(text, cleanup=cleanup))
            check(len(blob) == len(WRAPPED), f"len() is {len(blob)}", "FBD-INIT-1")
            _same(blob.to_bytes(), WRAPPED, f"to_bytes() of {text!r}", "FBD-INIT-1")
            if cleanup:
                blob.close()
                check(not target.exists(), f"close() left the owned {text!r}", "FBD-INIT-3")
        check(
            (tmp_path / "forms" / "blob.bin").read_bytes() == DECOY,
            "the decoy changed",
            "FBD-INIT-1",
        )

    @clause("FBD-INIT-8")
    @FORMS
    @pytest.mark.parametrize("how", ["constructor", "move_from"])
    def test_a_blob_keeps_its_file_after_chdir(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, form: PathForm, how: str
    ) -> None:
        target, text, cwd = _formed(tmp_path, form)
        with working_directory(cwd):
            if how == "constructor":
                blob = blobs.track(impl.FileBackedData(text, cleanup=True))
            else:
                blob = blobs.track(impl.FileBackedData.move_from(text))
        _same(blob.to_bytes(), WRAPPED, f"to_bytes() of {text!r} after chdir", "FBD-INIT-8")
        blob.close()
        left = [p.name for p in target.parent.iterdir() if p.is_file()]
        check(left == [], f"close() after chdir left {left} of {text!r}", "FBD-INIT-8")

    @clause("FBD-MOVE-1", "FBD-MOVE-2")
    @FORMS
    def test_move_from_takes_the_file_the_path_names_in_its_directory(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, form: PathForm
    ) -> None:
        target, text, cwd = _formed(tmp_path, form)
        home = tmp_path / "forms"
        with working_directory(cwd):
            blob = blobs.track(impl.FileBackedData.move_from(text))
            _same(blob.to_bytes(), WRAPPED, f"to_bytes() of move_from({text!r})", "FBD-MOVE-1")
        check(not target.exists(), f"move_from({text!r}) left the source", "FBD-MOVE-1")
        beside = placeholders(target.parent)
        check(
            len(beside) == 1 and beside[0].read_bytes() == WRAPPED,
            f"move_from({text!r}) made no placeholder holding the file in its directory "
            f"{target.parent} (found {beside}; in {home}: {placeholders(home)})",
            "FBD-MOVE-2",
        )
        check((home / "blob.bin").read_bytes() == DECOY, "the decoy changed", "FBD-MOVE-1")


@requires("file-backed")
class TestPathsWhoseMethodsLie:
    @clause("FBD-INIT-5")
    @pytest.mark.parametrize("how", ["constructor", "move_from"])
    def test_a_str_path_is_its_characters(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, how: str
    ) -> None:
        """A path of a ``str`` subclass is the ``str`` of its characters (FBD-INIT-5: a subclass
        of ``str`` is a ``str``): whichever of its methods says otherwise (``__fspath__``,
        ``__getitem__``, ``startswith``, ``rfind``, ...), absolute or a bare name, it names its
        file."""
        blamed = "FBD-INIT-5"  # hostile input: a strict rule
        target = tmp_path / "named.bin"
        for method in STR_METHODS:
            for text, cwd in ((str(target), tmp_path), (target.name, tmp_path)):
                target.write_bytes(WRAPPED)
                path = lying_str(text, [method])
                with working_directory(cwd):
                    try:
                        blob = blobs.track(
                            impl.FileBackedData(path, cleanup=True)
                            if how == "constructor"
                            else impl.FileBackedData.move_from(path)
                        )
                        got = blob.to_bytes()
                    except (OSError, ValueError, TypeError) as exc:
                        check(False, f"{text!r} whose {method} lies: {exc!r}", blamed)
                    # released where it was made: a release after chdir is FBD-INIT-8's
                    _same(got, WRAPPED, f"{text!r} whose {method} lies", blamed)
                    blob.close()
                    check(not target.exists(), f"close() left {text!r} ({method} lies)", blamed)


# --- a hole probe that cannot tell ---------------------------------------------------------------

PROBED = [c for c in WRITE_CLASSES if c.sparse or c.size > READ_BUFFER]


@contextlib.contextmanager
def _probe_fails(code: int) -> Iterator[list[int]]:
    """For the block, ``os.lseek`` with ``SEEK_DATA`` raises ``OSError(code)``, as on a
    filesystem that does not tell holes; yields a list counting the probes refused."""
    real = os.lseek
    refused: list[int] = []

    def lseek(fd: int, position: int, how: int) -> int:
        if how == getattr(os, "SEEK_DATA", None):
            refused.append(1)
            raise OSError(code, os.strerror(code))
        return real(fd, position, how)

    os.lseek = lseek
    try:
        yield refused
    finally:
        os.lseek = real


@pytest.mark.skipif(not hasattr(os, "SEEK_DATA"), reason="no SEEK_DATA")
@requires("file-backed")
class TestHoleProbeThatCannotTell:
    @clause("FBD-WRITE-3", "FBD-WRITE-1", "CORD-WRITE-1")
    @pytest.mark.parametrize("shape", PROBED, ids=[c.name for c in PROBED])
    @pytest.mark.parametrize("code", [errno.EINVAL, errno.EOPNOTSUPP], ids=["EINVAL", "EOPNOTSUPP"])
    @HOW
    def test_the_zeros_are_written(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        shape: BlobClass,
        code: int,
        how: str,
    ) -> None:
        """Where ``SEEK_DATA`` fails with another error than ``ENXIO``, the holes cannot be told
        (FBD-WRITE-3): the zeros are written, and the output is whole (FBD-WRITE-1)."""
        blob = _blob(blobs, shape)
        written = shape.data() if how == "blob" else HEADER + shape.data()
        blamed = "FBD-WRITE-1" if how == "blob" else "CORD-WRITE-1"
        target = tmp_path / "out.bin"
        with _probe_fails(code), open(target, "wb") as out:
            try:
                _write(impl, blob, how, out)
            except OSError as exc:
                check(False, f"a hole probe failing with {exc!r} failed the write", blamed)
        _same(target.read_bytes(), written, f"with a failing probe ({code})", blamed)
