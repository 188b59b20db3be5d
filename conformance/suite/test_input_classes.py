"""The input-class matrix of the core read, write, hash, prefix and dedup paths: every
blob class of :mod:`conformance.harness.input_classes` (sizes on each boundary, sparse files with
a hole at either end or in the middle) through each path, as a blob, as a Cord piece and as a
store's blob, with digests supplied and computed, into every sink. All of it is core: a path that
loses data for one class of input breaks the clause whose text promises that data, whatever
profile a test of a finer guarantee (holes kept as holes) belongs to. docs/coverage.md lists which
test covers which row."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.checks import check
from conformance.harness.helpers import Blobs, duplicate_message, sha
from conformance.harness.input_classes import (
    BLOB_CLASSES,
    CHUNKS,
    READ_BUFFER,
    SHORT_WRITE,
    SINKS,
    WRITE_CLASSES,
    BlobClass,
)

clause = pytest.mark.clause
requires = pytest.mark.requires

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


def _blob(blobs: Blobs, shape: BlobClass, sha256: bytes | None = None) -> FileBackedData:
    return blobs.wrap(shape.write(blobs.directory / f"{shape.name}.bin"), sha256=sha256)


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
        path = shape.write(blobs.directory / f"{shape.name}.bin")
        blob = blobs.wrap(path)
        path.unlink()
        calls: dict[str, Callable[[], object]] = {
            "prefix(32)": lambda: blob.prefix(32),
            "to_bytes()": blob.to_bytes,
            "sha256()": blob.sha256,
            "write_to_file()": lambda: blob.write_to_file(io.BytesIO()),
        }
        for name, call in calls.items():
            try:
                call()
            except FileNotFoundError:
                continue
            check(False, f"{name} of a removed {shape.size}-byte file did not raise", "FBD-FAULT-2")

    @clause("FBD-MOVE-7")
    @CLASSES
    def test_a_supplied_digest_is_the_digest(
        self, impl: Implementation, blobs: Blobs, shape: BlobClass
    ) -> None:
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
        data = shape.data()
        path = shape.write(blobs.directory / f"{shape.name}.bin")
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
        data = shape.data()
        path = shape.write(blobs.directory / f"{shape.name}.bin")
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
