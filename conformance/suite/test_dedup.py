"""NamedDataStore: deduplication, fingerprints and lazy digests (spec 4.4).

Two ways to see what a store reads and hashes, both independent of the implementation:
``rchar`` of /proc/self/io counts the bytes this process read from files, and a counting
stand-in for ``hashlib.sha256`` records what ``bytes`` were hashed (both the reference and
ExecuTorch look ``hashlib.sha256`` up on the module at call time).
"""

from __future__ import annotations

import collections
import hashlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.api import FileBackedData, Implementation, NamedDataStore
from conformance.harness.block_size import BLOCKS, LARGE_BLOCK
from conformance.harness.block_size import blocks as blocks_of
from conformance.harness.checks import check
from conformance.harness.helpers import PREFIX, Blobs, buffer_ids, content, fresh, real_sha256, sha
from conformance.harness.measure import READ_LIMIT, MiB, rchar, warm_up
from conformance.harness.observe import unobserved
from conformance.harness.os_faults import calls_of

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on

Blob = bytes | FileBackedData
Bytes = bytes | bytearray | memoryview


def sparse_contents(head: bytes, size: int, tail: bytes = b"") -> bytes:
    return head + bytes(size - len(head) - len(tail)) + tail


def index_of(store: NamedDataStore, key: str) -> int:
    out = store.get_named_data_store_output()
    entries = {**out.pte_data, **{k: e for m in out.external_data.values() for k, e in m.items()}}
    return entries[key].buffer_index


class Hashed:
    """Records the contents fed to every ``hashlib.sha256`` object made while installed."""

    def __init__(self) -> None:
        self.fed: list[bytearray] = []

    def counts(self) -> collections.Counter[bytes]:
        return collections.Counter(bytes(f) for f in self.fed)

    def make(self, data: Bytes = b"", **kwargs: Any) -> Any:
        log = bytearray(data)
        self.fed.append(log)
        real = real_sha256(data, **kwargs)

        class Counting:
            name, digest_size, block_size = real.name, real.digest_size, real.block_size

            def update(self, more: Bytes) -> None:
                log.extend(more)
                real.update(more)

            def digest(self) -> bytes:
                return real.digest()

            def hexdigest(self) -> str:
                return real.hexdigest()

        return Counting()


def observed(spy: Hashed) -> None:
    assert spy.fed, (
        "no SHA-256 was computed through hashlib.sha256 although a fingerprint matched: "
        "the implementation hashes some other way, so this test cannot count its hashing"
    )


# --------------------------------------------------------------------------------------------
# Sharing


class TestSharing:
    @clause("NDS-DEDUP-1")
    # files dedup with bytes by digest; the buffer is seen as the first object in the output
    @relies_on("FBD-MOVE-1", "FBD-HASH-1", "NDS-DEDUP-6", "NDS-DEDUP-5", "NDS-OUT-2")
    def test_equal_contents_share_whatever_key_tag_alignment_representation(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        data = PREFIX + b"weights"
        first = fresh(data)
        store = impl.NamedDataStore()
        store.add_named_data("a", first)
        store.add_named_data("b", fresh(data), 8, "model_1")
        store.add_named_data("c", blobs.wrap(blobs.file(data)), 16, "model_2")
        store.add_named_data("d", blobs.moved(data), 64, None, ("layout",))
        store.add_named_data("e", fresh(data), 3, "model_1")
        out = store.get_named_data_store_output()
        assert len(out.buffers) == 1 and out.buffers[0] is first
        assert [index_of(store, k) for k in "abcde"] == [0] * 5

    @clause("NDS-DEDUP-2")
    # the buffers are seen as the objects added, the duplicate's as the first one
    @relies_on("NDS-DEDUP-5", "NDS-OUT-2")
    @pytest.mark.parametrize(
        "kind",
        [
            "bytes",
            pytest.param("file", marks=relies_on("FBD-HASH-1")),  # files compared by digest
            pytest.param("mixed", marks=relies_on("FBD-HASH-1")),
        ],
    )
    def test_fingerprint_collisions_with_different_tails(
        self, impl: Implementation, blobs: Blobs, kind: str
    ) -> None:
        def blob(data: bytes, i: int) -> Blob:
            as_file = kind == "file" or (kind == "mixed" and i % 2 == 1)
            return blobs.wrap(blobs.file(data)) if as_file else fresh(data)

        contents = [
            PREFIX + b"X" * 100,
            PREFIX + b"Y" * 100,  # differs from byte 32 on
            PREFIX + b"X" * 99 + b"Z",  # differs in the last byte only
            PREFIX + b"X" * 50 + b"W" + b"X" * 49,  # differs in the middle
        ]
        store = impl.NamedDataStore()
        added = [blob(data, i) for i, data in enumerate(contents)]
        for i, data in enumerate(added):
            store.add_named_data(f"k{i}", data)
        duplicate = blob(contents[0], 1)  # a true duplicate of the first, in the other kind
        store.add_named_data("dup", duplicate)
        out = store.get_named_data_store_output()
        assert [content(b) for b in out.buffers] == contents
        assert all(b is a for b, a in zip(out.buffers, added, strict=True))
        assert [index_of(store, f"k{i}") for i in range(4)] == [0, 1, 2, 3]
        assert index_of(store, "dup") == 0

    @clause("NDS-DEDUP-5")
    @relies_on("NDS-OUT-2")  # the first object is looked for in the output
    @pytest.mark.parametrize("kind", ["bytes", pytest.param("file", marks=relies_on("FBD-HASH-1"))])
    def test_first_object_is_kept(self, impl: Implementation, blobs: Blobs, kind: str) -> None:
        data = PREFIX + b"same"
        made = [fresh(data) if kind == "bytes" else blobs.wrap(blobs.file(data)) for _ in range(3)]
        store = impl.NamedDataStore()
        for i, blob in enumerate(made):
            store.add_named_data(f"k{i}", blob, 1, "model" if i == 1 else None)
        buffers = store.get_named_data_store_output().buffers
        assert len(buffers) == 1 and buffers[0] is made[0]
        assert all(b is not later for b in buffers for later in made[1:])

    @clause("NDS-DEDUP-6")
    # a moved file's digest is compared with the bytes', and the first is looked for in the output
    @relies_on("FBD-MOVE-1", "FBD-HASH-1", "NDS-OUT-2")
    @pytest.mark.parametrize("first", ["bytes", "file"], ids=["bytes-first", "file-first"])
    def test_bytes_and_file_backed_share(
        self, impl: Implementation, blobs: Blobs, first: str
    ) -> None:
        data = PREFIX + b"either way"
        in_memory, on_disk = fresh(data), blobs.moved(data)
        order: list[Blob] = [in_memory, on_disk] if first == "bytes" else [on_disk, in_memory]
        store = impl.NamedDataStore()
        store.add_named_data("one", order[0], 4)
        store.add_named_data("two", order[1], 8, "model")
        buffers = store.get_named_data_store_output().buffers
        assert len(buffers) == 1
        check(any(buffers[0] is b for b in order), "the buffer is a copy", "NDS-OUT-2")
        check(buffers[0] is order[0], "the buffer is not the blob added first", "NDS-DEDUP-6")
        assert (index_of(store, "one"), index_of(store, "two")) == (0, 0)

    @clause("NDS-DEDUP-6")
    @relies_on("FBD-MOVE-1", "FBD-HASH-1", "NDS-OUT-2")
    def test_two_equal_files_share(self, impl: Implementation, blobs: Blobs) -> None:
        data = PREFIX + b"file contents"
        one, two = blobs.moved(data), blobs.wrap(blobs.file(data))
        store = impl.NamedDataStore()
        store.add_named_data("one", one, 1, "model")
        store.add_named_data("two", two, 1, "model")
        buffers = store.get_named_data_store_output().buffers
        assert len(buffers) == 1 and buffers[0] is one
        assert blobs.path(two).read_bytes() == data  # the second one is left alone

    @clause("NDS-DEDUP-7")
    # empty bytes and empty files share by digest (NDS-DEDUP-6), and the buffer is seen as the
    # first object in the output
    @relies_on("FBD-MOVE-1", "FBD-HASH-1", "NDS-DEDUP-6", "NDS-DEDUP-5", "NDS-OUT-2")
    @pytest.mark.parametrize("first", ["bytes", "wrapped-file", "moved-file"])
    def test_empty_blobs_share_one_buffer(
        self, impl: Implementation, blobs: Blobs, first: str
    ) -> None:
        made: dict[str, Blob] = {
            "bytes": b"",
            "wrapped-file": blobs.wrap(blobs.file(b"")),
            "moved-file": blobs.moved(b""),
        }
        order = [first, *(k for k in made if k != first)]
        store = impl.NamedDataStore()
        store.add_named_data("non-empty", b"x")
        for i, name in enumerate(order):
            store.add_named_data(name, made[name], 1, "model" if i == 1 else None)
        store.add_named_data("bytes-again", b"", 4)
        buffers = store.get_named_data_store_output().buffers
        assert len(buffers) == 2 and buffers[1] is made[first]
        assert content(buffers[1]) == b""
        assert [index_of(store, name) for name in [*order, "bytes-again"]] == [1, 1, 1, 1]

    @clause("NDS-DEDUP-7")
    # the supplied digest reaches the store through sha256(), compared with the digest of bytes;
    # buffers are seen by identity
    # NDS-DEDUP-7 itself says an empty blob's digest is trusted: NDS-DEDUP-10 is not relied on
    @relies_on("FBD-MOVE-1", "FBD-MOVE-7", "FBD-HASH-1", "NDS-DEDUP-5", "NDS-OUT-2")
    @pytest.mark.parametrize("supplied", ["wrong", "right"])
    @pytest.mark.parametrize("where", ["first", "second"])
    def test_an_empty_blob_with_a_supplied_digest_is_compared_by_it(
        self, impl: Implementation, blobs: Blobs, supplied: str, where: str
    ) -> None:
        """An empty blob is not shared for being empty: with a wrong supplied digest, first or
        after the other empty blobs, it gets a buffer of its own; with the right one it shares."""
        digest = sha(b"") if supplied == "right" else sha(b"not empty")
        claimed = blobs.moved(b"", sha256=digest)
        others: list[Blob] = [b"", blobs.moved(b"")]
        order = [claimed, *others] if where == "first" else [*others, claimed]
        store = impl.NamedDataStore()
        for i, blob in enumerate(order):
            store.add_named_data(f"empty-{i}", blob)
        buffers = store.get_named_data_store_output().buffers
        first_other = next(i for i, blob in enumerate(order) if blob is not claimed)
        if supplied == "right":
            assert len(buffers) == 1 and buffers[0] is order[0]
        else:
            assert len(buffers) == 2, f"{len(buffers)} buffers for empty blobs, one of them claimed"
            assert any(b is claimed for b in buffers), "the wrong-digest empty blob was shared"
            assert any(b is order[first_other] for b in buffers)
        expected = {0} if supplied == "right" else {index_of(store, f"empty-{first_other}")}
        others_at = {index_of(store, f"empty-{i}") for i, b in enumerate(order) if b is not claimed}
        assert others_at == expected

    @clause("NDS-DEDUP-9")
    # the order is seen by identity of the first objects; files share with bytes by digest; a
    # and b, of one fingerprint, stay apart
    @relies_on("FBD-MOVE-1", "FBD-HASH-1", "NDS-DEDUP-6", "NDS-DEDUP-2", "NDS-DEDUP-5", "NDS-OUT-2")
    def test_buffers_in_order_of_first_addition(self, impl: Implementation, blobs: Blobs) -> None:
        a, b, c = PREFIX + b"A", PREFIX + b"B", b"C"
        blob_a, blob_b, blob_c = fresh(a), blobs.moved(b), fresh(c)
        sequence: list[tuple[str, Blob, str | None]] = [
            ("a1", blob_a, "t2"),
            ("b1", blob_b, None),
            ("a2", fresh(a), None),
            ("c1", blob_c, "t1"),
            ("b2", blobs.wrap(blobs.file(b)), "t2"),
            ("a3", blobs.wrap(blobs.file(a)), "t1"),
        ]
        store = impl.NamedDataStore()
        for key, blob, tag in sequence:
            store.add_named_data(key, blob, 1, tag)
        out = store.get_named_data_store_output()
        assert buffer_ids(store) == [id(blob_a), id(blob_b), id(blob_c)]
        expected = {"a1": a, "b1": b, "a2": a, "c1": c, "b2": b, "a3": a}
        assert {k: content(out.buffers[index_of(store, k)]) for k in expected} == expected

    @clause("NDS-DEDUP-10")
    # the supplied digest reaches the store through sha256(); the buffer is seen as the first
    @relies_on("FBD-MOVE-1", "FBD-MOVE-7", "NDS-DEDUP-5", "NDS-OUT-2")
    def test_supplied_digests_are_trusted(self, impl: Implementation, blobs: Blobs) -> None:
        wrong = sha(b"a digest of neither file")
        first = blobs.wrap(blobs.file(PREFIX + b"first tail"), sha256=wrong)
        second = blobs.moved(PREFIX + b"other tail", sha256=wrong)
        store = impl.NamedDataStore()
        store.add_named_data("first", first)
        store.add_named_data("second", second, 1, "model")
        buffers = store.get_named_data_store_output().buffers
        assert len(buffers) == 1 and buffers[0] is first
        assert index_of(store, "second") == 0


# --------------------------------------------------------------------------------------------
# What is read and hashed


class TestLaziness:
    @clause("NDS-DEDUP-3")
    @pytest.mark.parametrize("blocks", BLOCKS)
    def test_unmatched_file_is_read_at_most_its_prefix(
        self, impl: Implementation, blobs: Blobs, blocks: str
    ) -> None:
        """On this filesystem, and on one whose files report 4 MiB blocks (``large``)."""
        size = 64 * MiB
        store = impl.NamedDataStore()
        store.add_named_data("same-length", blobs.wrap(blobs.sparse(size, b"Q" * 32)))
        store.add_named_data("same-prefix", blobs.wrap(blobs.sparse(size - 1, PREFIX)))
        store.add_named_data("bytes", PREFIX + b"short")
        big = blobs.wrap(blobs.sparse(size, PREFIX, b"end"))
        warm_up(impl, blobs)
        with (
            calls_of() as calls,
            blocks_of(blocks) as seen,
        ):
            start = rchar()
            store.add_named_data("big", big, 64, "model")
            read = rchar() - start
        if blocks == "large" and not seen and not calls:
            unobserved("adding a file made no stat, open() or os call the harness could see")
        where = f" (st_blksize {LARGE_BLOCK})" if blocks == "large" else ""
        assert read < READ_LIMIT, f"adding an unmatched {size}-byte file{where} read {read} bytes"
        assert buffer_ids(store)[-1] == id(big)

    @clause("NDS-DEDUP-3")
    @relies_on("NDS-DEDUP-4")  # that a match is confirmed by hashing shows how it hashes
    def test_unmatched_bytes_are_not_hashed(self, impl: Implementation, hashed: Hashed) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("a", PREFIX + b"a")
        store.add_named_data("b", b"Q" * 32 + b"a", 1, "model")
        store.add_named_data("c", PREFIX + b"ab")
        store.add_named_data("d", b"")
        assert hashed.fed == [], "a blob whose fingerprint matched nothing was hashed"
        assert len(store.get_named_data_store_output().buffers) == 4
        store.add_named_data("match", PREFIX + b"b")  # the fingerprint of "a": now both are hashed
        observed(hashed)

    @clause("NDS-DEDUP-4")
    # no read is seen only if the unmatched new files are read no further than their prefix
    @relies_on("NDS-DEDUP-3", "FBD-READ-1")
    def test_stored_file_is_not_read_until_a_fingerprint_matches(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        size = 8 * MiB
        stored = blobs.wrap(blobs.sparse(size, PREFIX, b"A"))
        store = impl.NamedDataStore()
        store.add_named_data("stored", stored)
        unmatched: list[Blob] = [
            blobs.wrap(blobs.sparse(size, b"Q" * 32, b"A")),
            blobs.wrap(blobs.sparse(size + 1, PREFIX, b"A")),
            sparse_contents(b"R" * 32, size, b"A"),
        ]
        warm_up(impl, blobs)
        start = rchar()
        for i, blob in enumerate(unmatched):
            store.add_named_data(f"unmatched{i}", blob)
        read = rchar() - start
        assert read < READ_LIMIT, f"{read} bytes read although no fingerprint matched"
        start = rchar()
        store.add_named_data("match", blobs.wrap(blobs.sparse(size, PREFIX, b"B")))
        read = rchar() - start
        assert read >= 2 * size, "a fingerprint match must be confirmed by both digests"

    @clause("NDS-DEDUP-4")
    @relies_on("FBD-READ-1")  # each new file's fingerprint reads no more than its prefix
    def test_stored_file_digest_is_kept(self, impl: Implementation, blobs: Blobs) -> None:
        size = 8 * MiB
        store = impl.NamedDataStore()
        store.add_named_data("stored", blobs.wrap(blobs.sparse(size, PREFIX, b"A")))
        store.add_named_data("first-match", blobs.wrap(blobs.sparse(size, PREFIX, b"B")))
        start = rchar()
        store.add_named_data("second-match", blobs.wrap(blobs.sparse(size, PREFIX, b"C")))
        read = rchar() - start
        assert read < size + READ_LIMIT, f"{read} bytes read: a stored digest was computed again"
        assert len(buffer_ids(store)) == 3

    @clause("NDS-DEDUP-4")
    def test_stored_bytes_are_hashed_when_needed_and_once(
        self, impl: Implementation, hashed: Hashed
    ) -> None:
        first = PREFIX + b"A" * 64
        store = impl.NamedDataStore()
        store.add_named_data("first", first)
        store.add_named_data("unmatched", b"Q" * 32 + b"A" * 64)
        assert hashed.counts()[first] == 0, "a stored digest was computed before it was needed"
        for tail in b"BCD":
            store.add_named_data(f"match {tail:c}", PREFIX + bytes([tail]) * 64)
        observed(hashed)
        assert hashed.counts()[first] == 1, "the stored buffer's digest was not kept"
        assert len(buffer_ids(store)) == 5

    @clause("NDS-DEDUP-10")
    # the supplied digest is sha256()'s, unread; the fingerprint reads a prefix; the outcome is
    # seen by identity: shared with the first object (bytes and file), or not shared
    @relies_on("FBD-MOVE-7", "FBD-HASH-1", "FBD-READ-1", "NDS-OUT-2")
    @pytest.mark.parametrize(
        "equal",
        [
            pytest.param(True, id="equal", marks=relies_on("NDS-DEDUP-5", "NDS-DEDUP-6")),
            pytest.param(False, id="other-tail", marks=relies_on("NDS-DEDUP-2")),
        ],
    )
    def test_file_with_supplied_digest_is_not_read(
        self, impl: Implementation, blobs: Blobs, equal: bool
    ) -> None:
        size = 8 * MiB
        stored = sparse_contents(PREFIX, size, b"A")
        store = impl.NamedDataStore()
        store.add_named_data("stored", stored)
        tail = b"A" if equal else b"B"
        path = blobs.sparse(size, PREFIX, tail)
        new = blobs.wrap(path, sha256=sha(sparse_contents(PREFIX, size, tail)))
        warm_up(impl, blobs)
        start = rchar()
        store.add_named_data("new", new, 1, "model")
        read = rchar() - start
        assert read < READ_LIMIT, f"a file with a supplied digest was read: {read} bytes"
        assert buffer_ids(store) == ([id(stored)] if equal else [id(stored), id(new)])

    @clause("NDS-DEDUP-8")
    # hashing is seen where a match is confirmed; the blobs are told apart by identity
    @relies_on("NDS-DEDUP-4", "NDS-DEDUP-2", "NDS-OUT-2")
    def test_bytes_are_hashed_at_most_once(self, impl: Implementation, hashed: Hashed) -> None:
        a, b, c = (PREFIX + tail * 64 for tail in (b"A", b"B", b"C"))
        store = impl.NamedDataStore()
        for key, data in zip("abc", (a, b, c), strict=True):
            store.add_named_data(key, data)
        observed(hashed)
        counts = hashed.counts()
        assert {data: counts[data] for data in (a, b, c)} == {a: 1, b: 1, c: 1}
        assert len(buffer_ids(store)) == 3

    @clause("NDS-DEDUP-8")
    # hashing is seen where a match is confirmed; the buffer is seen as the first object
    @relies_on("NDS-DEDUP-4", "NDS-DEDUP-5", "NDS-OUT-2")
    def test_a_stored_buffer_is_hashed_once_however_many_copies_match(
        self, impl: Implementation, hashed: Hashed
    ) -> None:
        a = PREFIX + b"A" * 64
        copies = [bytes(bytearray(a)) for _ in range(3)]  # equal contents, other objects
        store = impl.NamedDataStore()
        store.add_named_data("a", a)
        for i, copy in enumerate(copies):
            store.add_named_data(f"copy{i}", copy)
        observed(hashed)
        counts = hashed.counts()
        # these contents are hashed once for the stored buffer and once for each copy, however
        # many copies are compared with it: a store that keeps no digest hashes it again each time
        assert counts[a] <= 1 + len(copies)
        assert buffer_ids(store) == [id(a)]

    @clause("NDS-DEDUP-8")
    # fingerprints read a prefix only; the files, colliding, are told apart by identity
    @relies_on("FBD-READ-1", "NDS-DEDUP-2", "NDS-OUT-2")
    def test_files_are_hashed_at_most_once(self, impl: Implementation, blobs: Blobs) -> None:
        size = 4 * MiB
        files = [blobs.wrap(blobs.sparse(size, PREFIX, tail)) for tail in (b"A", b"B", b"C")]
        store = impl.NamedDataStore()
        warm_up(impl, blobs)
        start = rchar()
        for i, blob in enumerate(files):
            store.add_named_data(f"k{i}", blob)
        read = rchar() - start
        assert read < 3 * size + READ_LIMIT, f"{read} bytes read to hash three {size}-byte files"
        assert buffer_ids(store) == [id(f) for f in files]

    @pytest.fixture
    def hashed(self, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hashed]:
        """Count SHA-256 hashing through ``hashlib.sha256`` for the test's duration."""
        spy = Hashed()
        monkeypatch.setattr(hashlib, "sha256", spy.make)
        yield spy


# --------------------------------------------------------------------------------------------
# Property: any mix of colliding blobs


TAILS = st.sampled_from([b"", b"x", b"y", b"xy", b"yx", b"xx"])
ADDS = st.lists(
    st.tuples(
        st.sampled_from([b"", PREFIX, b"short"]),
        TAILS,
        st.booleans(),
        st.sampled_from([None, "t1", "t2"]),
        st.sampled_from([1, 3, 16]),
    ),
    min_size=1,
    max_size=12,
)


class TestFirstObjects:
    """A property: whatever is added, the buffers are the first object of each distinct contents."""

    @pytest.mark.requires("file-backed")
    @clause("NDS-DEDUP-1", "NDS-DEDUP-2", "NDS-DEDUP-5", "NDS-DEDUP-6", "NDS-DEDUP-9")
    @relies_on("FBD-HASH-1", "NDS-OUT-2")  # files dedup by digest; buffers seen by identity
    # ``impl`` is an immutable description, so it may be function-scoped (a user's override):
    # sharing it across examples is right, and Hypothesis's health check would refuse it.
    @settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(adds=ADDS)
    def test_buffers_are_the_first_object_of_each_distinct_contents(
        self, impl: Implementation, adds: list[tuple[bytes, bytes, bool, str | None, int]]
    ) -> None:
        with tempfile.TemporaryDirectory() as directory:
            made: list[FileBackedData] = []
            try:
                blobs: list[Blob] = []
                for i, (head, tail, as_file, _, _) in enumerate(adds):
                    if as_file:
                        path = Path(directory, f"{i}.bin")
                        path.write_bytes(head + tail)
                        made.append(impl.FileBackedData(str(path)))
                        blobs.append(made[-1])
                    else:
                        blobs.append(fresh(head + tail))
                store = impl.NamedDataStore()
                for i, (blob, (_, _, _, tag, alignment)) in enumerate(
                    zip(blobs, adds, strict=True)
                ):
                    store.add_named_data(f"key{i}", blob, alignment, tag)
                out = store.get_named_data_store_output()
                firsts: dict[bytes, Blob] = {}
                for (head, tail, *_), blob in zip(adds, blobs, strict=True):
                    firsts.setdefault(head + tail, blob)
                held = [content(b) for b in out.buffers]
                for i, (head, tail, _, tag, alignment) in enumerate(adds):
                    entry = (out.pte_data if tag is None else out.external_data[tag])[f"key{i}"]
                    got = held[entry.buffer_index]
                    check(
                        got == head + tail or got not in firsts,
                        f"key{i} shares the buffer of other contents",
                        "NDS-DEDUP-2",
                    )
                    assert got == head + tail, f"key{i}'s buffer_index points at no buffer of it"
                    check(entry.alignment == alignment, f"key{i}'s alignment", "NDS-ALIGN-1")
                # equal contents share (a file with bytes by digest: plain, as it relies on it)
                assert len(out.buffers) == len(firsts)
                check(held == list(firsts), "buffers not in order of first addition", "NDS-DEDUP-9")
                check(
                    all(any(b is blob for blob in blobs) for b in out.buffers),
                    "an output buffer is none of the objects added: a copy",
                    "NDS-OUT-2",
                )
                check(
                    [id(b) for b in out.buffers] == [id(b) for b in firsts.values()],
                    "a buffer is not the first object of its contents",
                    "NDS-DEDUP-5",
                )
            finally:
                for blob in made:
                    blob.close()
