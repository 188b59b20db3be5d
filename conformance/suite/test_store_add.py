"""NamedDataStore: adding data, keys, alignment and atomic add (spec 4.1 to 4.3)."""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.api import FileBackedData, Implementation, NamedDataStore
from conformance.harness import bytes_subclasses
from conformance.harness.checks import check
from conformance.harness.classes import REJECTED, claiming, lying_strs, names_type
from conformance.harness.helpers import (
    PREFIX,
    Blobs,
    State,
    content,
    duplicate_message,
    fresh,
    sha,
    state,
)
from conformance.harness.measure import READ_LIMIT, MiB, peak_memory, rchar

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on

Blob = bytes | FileBackedData


class _Bytes(bytes):
    """A subclass of ``bytes``, which NDS-ADD-1 takes as ``bytes``."""


@dataclass(frozen=True)
class Layout:
    """An opaque tensor layout, compared with ``==`` (spec section 1)."""

    name: str


L1, L2 = Layout("f32[1,2]"), Layout("f32[2,1]")

# --------------------------------------------------------------------------------------------
# Helpers: blobs of either kind, and where a key is


def make(blobs: Blobs, kind: str, data: bytes) -> Blob:
    """``data`` as a fresh ``bytes`` object or as a FileBackedData of a new file."""
    return fresh(data) if kind == "bytes" else blobs.wrap(blobs.file(data))


def where(store: NamedDataStore, key: str) -> list[str | None]:
    """Every place (None for inline, else the tag) where ``key`` has an entry."""
    out = store.get_named_data_store_output()
    places: list[str | None] = [None] if key in out.pte_data else []
    return places + [tag for tag, entries in out.external_data.items() if key in entries]


# --------------------------------------------------------------------------------------------
# 4.1 Adding data


class TestAdd:
    @clause("NDS-ADD-1")
    def test_bytes_and_file_backed_are_accepted(self, impl: Implementation, blobs: Blobs) -> None:
        store = impl.NamedDataStore()
        in_memory, on_disk = b"in memory", blobs.moved(b"on disk")
        store.add_named_data("bytes", in_memory)
        store.add_named_data("file", on_disk)
        out = store.get_named_data_store_output()
        assert [content(out.buffers[out.pte_data[k].buffer_index]) for k in ("bytes", "file")] == [
            b"in memory",
            b"on disk",
        ]

    @clause("NDS-ADD-1")
    @pytest.mark.parametrize(
        "data",
        [bytearray(b"ba"), memoryview(b"mv"), "text", 7, None, [b"a"]],
        ids=["bytearray", "memoryview", "str", "int", "None", "list"],
    )
    def test_other_types_are_rejected(self, impl: Implementation, data: object) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        with pytest.raises(TypeError, match=re.escape(type(data).__name__)):
            store.add_named_data("new", data)
        assert state(store) == before

    @clause("NDS-ADD-1")
    @relies_on("NDS-OUT-2")  # the stored buffer is seen, by identity, in an output
    def test_a_bytes_subclass_is_bytes(self, impl: Implementation) -> None:
        data = _Bytes(b"a bytes subclass")
        store = impl.NamedDataStore()
        store.add_named_data("sub", data)
        out = store.get_named_data_store_output()
        assert out.buffers[out.pte_data["sub"].buffer_index] is data

    @clause("NDS-ADD-1")
    @relies_on("NDS-OUT-2")  # the stored buffer is seen, by identity, in an output
    @pytest.mark.parametrize("tag", [None, "model"], ids=["inline", "external"])
    @pytest.mark.parametrize(
        "kind", list(bytes_subclasses.ALL.values()), ids=list(bytes_subclasses.ALL)
    )
    def test_a_bytes_subclass_blob_is_stored_not_copied(
        self, impl: Implementation, kind: type[bytes], tag: str | None
    ) -> None:
        """Every subclass, inline or under a tag, is the stored buffer itself; an add that made
        a copy of it on the way shows in its peak memory."""
        data = kind(bytes(16 * MiB))
        store = impl.NamedDataStore()
        store.add_named_data("before", b"warm", 1, tag)
        peak = peak_memory(lambda: store.add_named_data("sub", data, 1, tag))
        out = store.get_named_data_store_output()
        entries = out.pte_data if tag is None else out.external_data[tag]
        assert out.buffers[entries["sub"].buffer_index] is data, f"a {kind.__name__} was copied"
        assert peak < MiB, f"adding a {kind.__name__} of {16 * MiB} bytes allocated {peak} bytes"

    @clause("NDS-ADD-2")
    def test_inline_and_external_places(self, impl: Implementation, blobs: Blobs) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("inline", b"inline data")
        store.add_named_data("ext", b"external data", 8, "model_a")
        store.add_named_data("ext_file", blobs.moved(b"file data"), 16, "model_b", L1)
        store.add_named_data("ext2", b"more external", 4, "model_a")
        out = store.get_named_data_store_output()
        assert list(out.pte_data) == ["inline"]
        assert {tag: list(entries) for tag, entries in out.external_data.items()} == {
            "model_a": ["ext", "ext2"],
            "model_b": ["ext_file"],
        }
        placed = [
            (out.pte_data["inline"], b"inline data", 1, None),
            (out.external_data["model_a"]["ext"], b"external data", 8, None),
            (out.external_data["model_b"]["ext_file"], b"file data", 16, L1),
            (out.external_data["model_a"]["ext2"], b"more external", 4, None),
        ]
        for entry, data, alignment, layout in placed:
            assert content(out.buffers[entry.buffer_index]) == data
            assert entry.alignment == alignment
            check(entry.tensor_layout == layout, f"layout {entry.tensor_layout!r}", "NDS-ADD-7")

    @clause("NDS-ADD-3")
    def test_alignment_none_means_one(self, impl: Implementation) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("inline", b"a", None)
        store.add_named_data("ext", b"b", None, "model")
        out = store.get_named_data_store_output()
        assert out.pte_data["inline"].alignment == 1
        assert out.external_data["model"]["ext"].alignment == 1

    @clause("NDS-ADD-3")
    @pytest.mark.parametrize("alignment", [0, -1, -4096])
    def test_non_positive_alignment(self, impl: Implementation, alignment: int) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept", 8)
        before = state(store)
        message = f"Alignment must be greater than 0, received {alignment}."
        with pytest.raises(ValueError, match="^" + re.escape(message) + r"\Z"):
            store.add_named_data("new", b"new data", alignment)
        assert state(store) == before

    @clause("NDS-ADD-4")
    def test_any_positive_alignment_is_stored_as_given(self, impl: Implementation) -> None:
        alignments = [1, 2, 3, 5, 6, 7, 12, 100, 4096, 4097, 2**40 + 1]
        store = impl.NamedDataStore()
        for i, alignment in enumerate(alignments):
            store.add_named_data(f"k{i}", f"data {i}".encode(), alignment, "t" if i % 2 else None)
        out = store.get_named_data_store_output()
        entries = {**out.pte_data, **out.external_data["t"]}
        assert [entries[f"k{i}"].alignment for i in range(len(alignments))] == alignments

    @clause("NDS-ADD-5")
    @pytest.mark.parametrize(
        "alignment", [True, 1.5, 4.0, "4"], ids=["True", "float", "integral-float", "str"]
    )
    def test_alignment_must_be_int(self, impl: Implementation, alignment: object) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        names = re.escape(repr(alignment)) + "|" + re.escape(str(alignment))
        with pytest.raises(TypeError, match=names):
            store.add_named_data("new", b"new data", alignment)
        assert state(store) == before

    @clause("NDS-ADD-6")
    @pytest.mark.parametrize(
        "key", [1, None, b"key", ("key",)], ids=["int", "None", "bytes", "tuple"]
    )
    def test_key_must_be_str(self, impl: Implementation, key: object) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        with pytest.raises(TypeError, match=re.escape(repr(key))):
            store.add_named_data(key, b"new data")
        assert state(store) == before

    @clause("NDS-ADD-6")
    @pytest.mark.parametrize("tag", [1, b"model", ("model",)], ids=["int", "bytes", "tuple"])
    def test_tag_must_be_str_or_none(self, impl: Implementation, tag: object) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        with pytest.raises(TypeError, match=re.escape(repr(tag))):
            store.add_named_data("new", b"new data", 1, tag)
        assert state(store) == before

    @clause("NDS-ADD-6")
    def test_empty_tag_is_rejected(self, impl: Implementation) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        with pytest.raises(ValueError):
            store.add_named_data("new", b"new data", 1, "")
        assert state(store) == before

    @clause("NDS-ADD-7")
    def test_tensor_layout_is_stored_as_given(self, impl: Implementation, blobs: Blobs) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("inline", b"a", 1, None, L1)
        store.add_named_data("ext", blobs.moved(b"b"), 1, "model", L2)
        store.add_named_data("shared", b"a", 1, None, L2)  # same buffer as "inline", own layout
        store.add_named_data("none", b"c")
        out = store.get_named_data_store_output()
        assert out.pte_data["inline"].tensor_layout == L1
        assert out.external_data["model"]["ext"].tensor_layout == L2
        assert out.pte_data["shared"].tensor_layout == L2
        assert out.pte_data["none"].tensor_layout is None


# --------------------------------------------------------------------------------------------
# NDS-ATOMIC-1. An empty tag map left by a failed add is filtered out of every output
# (NDS-OUT-1), so it is not visible in an output taken right after the failure. It is visible
# in the order of the tags once that tag is used: the leftover map holds the tag's first
# position. So each case checks both: the output right after the failure, and a twin store that
# never saw the failing add, given the same later adds.

Op = Callable[[NamedDataStore], None]


def _failing_ops(blobs: Blobs) -> dict[str, tuple[type[Exception], Op]]:
    collides = blobs.wrap(blobs.file(PREFIX + b"TAIL"))  # k_file holds PREFIX + b"tail"
    removed = blobs.wrap(blobs.file(b"removed"))
    blobs.path(removed).unlink()
    # A new key under a new tag whose blob fails only when it is read (FBD-FAULT-2): every
    # argument is valid, so only a store that makes the tag's map before reading is left changed.
    return {
        "removed-file-new-tag": (
            FileNotFoundError,
            lambda s: s.add_named_data("new", removed, 1, "fresh"),
        ),
        "bad-type": (TypeError, lambda s: s.add_named_data("new", bytearray(b"x"), 1, "fresh")),
        "bad-alignment": (ValueError, lambda s: s.add_named_data("new", b"x", 0, "fresh")),
        "conflict-inline": (ValueError, lambda s: s.add_named_data("k_inline", b"other")),
        "conflict-same-tag": (ValueError, lambda s: s.add_named_data("k_ext", b"other", 1, "t")),
        "conflict-new-tag": (
            ValueError,
            lambda s: s.add_named_data("k_inline", b"other", 1, "fresh"),
        ),
        "conflict-digest-new-tag": (  # equal fingerprint, other tail: decided by digests
            ValueError,
            lambda s: s.add_named_data("k_file", collides, 1, "fresh"),
        ),
    }


class Name(str):
    """A str whose hash is not its characters': equal to ``"a"``, found under another hash."""

    def __hash__(self) -> int:
        return str.__hash__(self) + 1


class Lying(int):
    """An int whose comparisons say it is positive and in any range, whatever its value."""

    def __le__(self, other: object) -> bool:
        return False

    def __lt__(self, other: object) -> bool:
        return True

    def __ge__(self, other: object) -> bool:
        return True

    def __gt__(self, other: object) -> bool:
        return True


class Width(int):
    """An honest int of a subclass, as an ``IntEnum`` alignment is."""


def exact(store: NamedDataStore) -> list[tuple[object, object, type, type]]:
    """The keys and tags of ``store``'s output with their types and the types of alignments."""
    out = store.get_named_data_store_output()
    places = [(None, out.pte_data), *out.external_data.items()]
    return [
        (tag, key, type(key), type(entry.alignment))
        for tag, entries in places
        for key, entry in entries.items()
    ] + [(tag, None, type(tag), int) for tag in out.external_data]


class TestExactValues:
    @clause("NDS-ADD-8")
    @relies_on("NDS-KEY-2", "NDS-KEY-1")  # an equal re-add of a, one entry per key
    @pytest.mark.parametrize(
        "how",
        ["add", pytest.param("merge", marks=relies_on("NDS-MERGE-1"))],  # replays "t"
    )
    def test_keys_tags_and_alignments_are_used_as_exact_values(
        self, impl: Implementation, how: str
    ) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("a", b"A", 2)
        added = [(Name("a"), b"A", Width(4), None), (Name("b"), b"B", Width(8), Name("t"))]
        if how == "add":
            for key, data, alignment, tag in added:
                store.add_named_data(key, data, alignment, tag)
        else:
            other = impl.NamedDataStoreOutput(
                [b"A", b"B"],
                {added[0][0]: impl.DataEntry(0, added[0][2], None)},
                {Name("t"): {added[1][0]: impl.DataEntry(1, added[1][2], None)}},
            )
            store.merge_named_data_store(other)
        assert exact(store) == [
            (None, "a", str, int),
            ("t", "b", str, int),
            ("t", None, str, int),
        ]
        out = store.get_named_data_store_output()
        assert (out.pte_data["a"].alignment, out.external_data["t"]["b"].alignment) == (4, 8)

    @clause("NDS-ADD-8")
    @relies_on("NDS-ADD-3", "NDS-MERGE-7")  # the value, not its comparisons, is what they check
    @pytest.mark.parametrize("how", ["add", "merge-alignment", "merge-index"])
    def test_an_int_whose_comparisons_lie_is_checked_as_its_value(
        self, impl: Implementation, how: str
    ) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        with pytest.raises(ValueError, match="-8" if how != "merge-index" else "'new'"):
            if how == "add":
                store.add_named_data("new", b"new data", Lying(-8))
            else:
                bad = (
                    impl.DataEntry(0, Lying(-8), None)
                    if how == "merge-alignment"
                    else impl.DataEntry(Lying(-1), 1, None)  # would take the last buffer
                )
                other = impl.NamedDataStoreOutput([b"zero", b"one"], {"new": bad}, {})
                store.merge_named_data_store(other)
        assert state(store) == before


class TestAtomicAdd:
    @clause("NDS-ATOMIC-1")
    # each case makes an add fail by what another clause requires to fail: it must raise
    @pytest.mark.parametrize(
        "case",
        [
            pytest.param("bad-type", marks=relies_on("NDS-ADD-1")),
            pytest.param("bad-alignment", marks=relies_on("NDS-ADD-3")),
            pytest.param("conflict-inline", marks=relies_on("NDS-KEY-3")),
            pytest.param("conflict-same-tag", marks=relies_on("NDS-KEY-3")),
            pytest.param("conflict-new-tag", marks=relies_on("NDS-KEY-3")),
            pytest.param(  # a conflict decided by the file's digest, made by move_from
                "conflict-digest-new-tag",
                marks=relies_on("NDS-KEY-3", "NDS-KEY-4", "FBD-MOVE-1", "FBD-HASH-1"),
            ),
            pytest.param("removed-file-new-tag", marks=relies_on("FBD-FAULT-2")),
        ],
    )
    def test_failed_add_leaves_the_store_as_it_was(
        self, impl: Implementation, blobs: Blobs, case: str
    ) -> None:
        error, failing = _failing_ops(blobs)[case]
        inline, ext, on_disk = fresh(b"inline"), fresh(b"external"), blobs.moved(PREFIX + b"tail")
        later = [fresh(b"later 1"), fresh(b"later 2"), fresh(b"later 3")]

        def build(store: NamedDataStore) -> NamedDataStore:
            store.add_named_data("k_inline", inline, 4)
            store.add_named_data("k_ext", ext, 8, "t")
            store.add_named_data("k_file", on_disk, 16, "t2")
            return store

        def then(store: NamedDataStore) -> State:
            store.add_named_data("after_other", later[0], 1, "t_other")
            store.add_named_data("after_fresh", later[1], 1, "fresh")
            store.add_named_data("after_inline", later[2])
            return state(store)

        store = build(impl.NamedDataStore())
        before = state(store)
        with pytest.raises(error):
            failing(store)
        assert state(store) == before

        failed = build(impl.NamedDataStore())
        with pytest.raises(error):
            failing(failed)
        assert then(failed) == then(build(impl.NamedDataStore()))


# --------------------------------------------------------------------------------------------
# 4.2 Keys


class TestKeys:
    @clause("NDS-KEY-5")
    @relies_on("NDS-ADD-7")  # the third re-add differs from the layout stored
    def test_a_re_add_fails_on_the_first_difference_in_order(self, impl: Implementation) -> None:
        """Contents, then place, then layout; alignment only when the rest agrees."""
        store = impl.NamedDataStore()
        store.add_named_data("k", b"data", 4, "weights_a", L1)
        before = state(store)
        with pytest.raises(ValueError, match=re.escape("Duplicate key k with different data")):
            store.add_named_data("k", b"other", 8, "weights_b", L2)
        with pytest.raises(ValueError) as place:
            store.add_named_data("k", b"data", 8, "weights_b", L2)
        assert "weights_a" in str(place.value) and "weights_b" in str(place.value), place.value
        with pytest.raises(ValueError) as layout:
            store.add_named_data("k", b"data", 8, "weights_a", L2)
        assert "weights_b" not in str(layout.value), layout.value
        assert state(store) == before, "a failed re-add changed the alignment"

    @clause("NDS-KEY-1")
    @relies_on("NDS-KEY-3")  # a second entry is first tried with other contents, which must raise
    @pytest.mark.parametrize("first", [None, "model_a"], ids=["inline-first", "external-first"])
    def test_a_key_has_at_most_one_entry(self, impl: Implementation, first: str | None) -> None:
        other = "model_b" if first else "model_a"
        store = impl.NamedDataStore()
        store.add_named_data("key", b"data", 1, first)
        with pytest.raises(ValueError):
            store.add_named_data("key", b"different data", 1, other)
        with contextlib.suppress(ValueError):  # a no-op (core) or an error (strict, NDS-KEY-5)
            store.add_named_data("key", b"data", 1, other)
        with contextlib.suppress(ValueError):
            store.add_named_data("key", b"data", 1, None if first else "model_b")
        assert where(store, "key") == [first]

    @clause("NDS-KEY-2")
    @pytest.mark.parametrize(
        "kinds",
        [
            ("bytes", "bytes"),
            # a file's equality is judged by its digest (NDS-KEY-4)
            pytest.param(("bytes", "file"), marks=relies_on("FBD-HASH-1")),
            pytest.param(("file", "bytes"), marks=relies_on("FBD-HASH-1")),
            pytest.param(("file", "file"), marks=relies_on("FBD-HASH-1")),
        ],
        ids=lambda kinds: "-then-".join(kinds),
    )
    @pytest.mark.parametrize("tag", [None, "model"], ids=["inline", "external"])
    def test_equal_contents_are_accepted(
        self, impl: Implementation, blobs: Blobs, kinds: tuple[str, str], tag: str | None
    ) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("before", b"unrelated")
        store.add_named_data("key", make(blobs, kinds[0], PREFIX + b"payload"), 8, tag, L1)
        store.add_named_data("after", b"unrelated too", 1, tag)
        kept = store.get_named_data_store_output().buffers
        before = state(store)
        again = make(blobs, kinds[1], PREFIX + b"payload")
        store.add_named_data("key", again, 8, tag, L1)
        buffers = store.get_named_data_store_output().buffers
        check(  # which of two equal objects a store keeps is NDS-DEDUP-5's
            len(buffers) != len(kept) or buffers[1] is not again,
            "the re-added object replaced the first one",
            "NDS-DEDUP-5",
        )
        assert state(store) == before

    @clause("NDS-KEY-3")
    @pytest.mark.parametrize(
        ("old", "new"),
        [
            (("bytes", b"data"), ("bytes", b"data1")),
            (("bytes", b"longer data"), ("bytes", b"short")),
            (("bytes", PREFIX + b"X" * 9), ("bytes", PREFIX + b"Y" * 9)),
            (("file", b"abc"), ("bytes", b"abcd")),
            (("bytes", PREFIX + b"X"), ("file", PREFIX + b"Y")),
            (("file", PREFIX + b"X" * 3), ("file", PREFIX + b"Y" * 3)),
        ],
        ids=[
            "bytes-longer",
            "bytes-shorter",
            "bytes-same-fingerprint",
            "file-then-bytes",
            "bytes-then-file-same-fingerprint",
            "files-same-fingerprint",
        ],
    )
    @pytest.mark.parametrize("tag", [None, "model"], ids=["inline", "external"])
    def test_different_contents_raise(
        self,
        impl: Implementation,
        blobs: Blobs,
        old: tuple[str, bytes],
        new: tuple[str, bytes],
        tag: str | None,
    ) -> None:
        key = "layer[0].weight (f32)*"  # regex metacharacters: the message is matched escaped
        store = impl.NamedDataStore()
        store.add_named_data("other", b"other data", 4)
        store.add_named_data(key, make(blobs, *old), 16, tag)
        before = state(store)
        with pytest.raises(ValueError, match=duplicate_message(key, len(old[1]), len(new[1]))):
            store.add_named_data(key, make(blobs, *new), 16, tag)
        assert state(store) == before

    @clause("NDS-KEY-4")
    # the supplied digest is the one sha256() returns; inequality shows as NDS-KEY-3's error
    @relies_on("FBD-MOVE-7", "NDS-KEY-3")
    @pytest.mark.parametrize(
        "stored",
        [
            "bytes",
            "file-true-digest",
            pytest.param("file-no-digest", marks=relies_on("FBD-HASH-1")),
        ],
    )
    def test_equal_contents_with_another_supplied_digest_raise(
        self, impl: Implementation, blobs: Blobs, stored: str
    ) -> None:
        data = PREFIX + b"equal contents"
        first: Blob = fresh(data)
        if stored != "bytes":
            first = blobs.wrap(blobs.file(data), sha256=sha(data) if "true" in stored else None)
        store = impl.NamedDataStore()
        store.add_named_data("key", first)
        before = state(store)
        lying = blobs.wrap(blobs.file(data), sha256=sha(b"something else"))
        with pytest.raises(ValueError, match=duplicate_message("key", len(data), len(data))):
            store.add_named_data("key", lying)
        assert state(store) == before

    @clause("NDS-KEY-4")
    # the supplied digest is the one sha256() returns; inequality shows as NDS-KEY-3's error
    @relies_on("FBD-MOVE-7", "NDS-KEY-3")
    def test_stored_supplied_digest_judges(self, impl: Implementation, blobs: Blobs) -> None:
        data = PREFIX + b"equal contents"
        store = impl.NamedDataStore()
        store.add_named_data("key", blobs.wrap(blobs.file(data), sha256=sha(b"something else")))
        before = state(store)
        with pytest.raises(ValueError, match=duplicate_message("key", len(data), len(data))):
            store.add_named_data("key", fresh(data))
        assert state(store) == before

    @clause("NDS-KEY-4")
    # the supplied digest is sha256()'s; the state compared holds the first object (kept)
    @relies_on("FBD-MOVE-7", "NDS-DEDUP-5", "NDS-OUT-2")
    def test_different_contents_with_the_same_supplied_digest_are_equal(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        claimed = sha(b"claimed")
        store = impl.NamedDataStore()
        store.add_named_data("key", blobs.wrap(blobs.file(PREFIX + b"X"), sha256=claimed))
        before = state(store)
        store.add_named_data("key", blobs.wrap(blobs.file(PREFIX + b"Y"), sha256=claimed))
        assert state(store) == before

    @clause("NDS-KEY-4")
    # supplied digests are not read, fingerprints read a prefix; the first object is kept
    @relies_on("FBD-MOVE-7", "FBD-READ-1", "NDS-DEDUP-5", "NDS-OUT-2")
    def test_files_with_digests_are_not_read(self, impl: Implementation, blobs: Blobs) -> None:
        size = 8 * MiB
        head, tail = PREFIX + b"head", b"tail"
        digest = sha(head + bytes(size - len(head) - len(tail)) + tail)
        one = blobs.wrap(blobs.sparse(size, head, tail), sha256=digest)
        two = blobs.wrap(blobs.sparse(size, head, tail), sha256=digest)
        store = impl.NamedDataStore()
        store.add_named_data("warm-up", blobs.wrap(blobs.file(b"warm")))
        start = rchar()
        store.add_named_data("key", one, 64, "model")
        store.add_named_data("key", two, 64, "model")
        read = rchar() - start
        assert read < READ_LIMIT, f"re-adding a key read {read} bytes of two {size}-byte files"
        assert [b is one for b in store.get_named_data_store_output().buffers] == [False, True]

    @clause("NDS-KEY-5")
    @pytest.mark.parametrize(
        ("old", "new"),
        [(None, "weights_b"), ("weights_a", None), ("weights_a", "weights_b")],
        ids=["inline-then-external", "external-then-inline", "other-tag"],
    )
    def test_equal_contents_in_another_place_raise(
        self, impl: Implementation, old: str | None, new: str | None
    ) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("shared.key", b"same data", 4, old)
        before = state(store)
        with pytest.raises(ValueError) as raised:
            store.add_named_data("shared.key", b"same data", 4, new)
        message = str(raised.value)
        assert repr("shared.key") in message  # the key named (Terms): its repr
        assert all(tag in message for tag in (old, new) if tag is not None), message
        assert state(store) == before

    @clause("NDS-KEY-6")
    @relies_on("NDS-ADD-7")  # the re-added layout is compared with the one stored
    @pytest.mark.parametrize(
        ("old", "new"), [(L1, L2), (None, L1), (L1, None)], ids=["other", "added", "dropped"]
    )
    def test_equal_contents_with_another_layout_raise(
        self, impl: Implementation, old: Layout | None, new: Layout | None
    ) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("layout.key", b"same data", 4, None, old)
        before = state(store)
        with pytest.raises(ValueError, match=re.escape(repr("layout.key"))):  # named (Terms)
            store.add_named_data("layout.key", b"same data", 4, None, new)
        assert state(store) == before


class TestKeyEquality:
    @clause("NDS-KEY-4", "NDS-KEY-3")
    @pytest.mark.parametrize(("old", "new"), [(1, 2), (2, 1)], ids=["longer", "shorter"])
    def test_equal_supplied_digests_of_other_lengths_differ(
        self, impl: Implementation, blobs: Blobs, old: int, new: int
    ) -> None:
        """Equality is length *and* digest: a blob of another length is different contents even
        when its supplied digest equals the stored one. Kills
        ``tests/mutants/key_digest_without_length``."""
        claimed = sha(b"claimed")
        store = impl.NamedDataStore()
        store.add_named_data("key", blobs.wrap(blobs.file(PREFIX + b"X" * old), sha256=claimed))
        before = state(store)
        again = blobs.wrap(blobs.file(PREFIX + b"Y" * new), sha256=claimed)
        message = duplicate_message("key", 32 + old, 32 + new, whole=False)
        with pytest.raises(ValueError, match=message):
            store.add_named_data("key", again)
        assert state(store) == before


# --------------------------------------------------------------------------------------------
# 4.3 Alignment


class TestAlignment:
    @clause("NDS-ALIGN-1")
    # the keys share one buffer across representations, files by digest
    @relies_on("FBD-MOVE-1", "FBD-HASH-1", "NDS-DEDUP-6")
    def test_keys_sharing_a_buffer_keep_their_own(self, impl: Implementation, blobs: Blobs) -> None:
        data = PREFIX + b"shared"
        store = impl.NamedDataStore()
        added = [
            ("a", fresh(data), 3, None),
            ("b", fresh(data), 4, None),
            ("c", fresh(data), 16, "model"),
            ("d", blobs.moved(data), 4096, "model"),
            ("e", blobs.wrap(blobs.file(data)), 1, None),
        ]
        for key, blob, alignment, tag in added:
            store.add_named_data(key, blob, alignment, tag)
        out = store.get_named_data_store_output()
        entries = {**out.pte_data, **out.external_data["model"]}
        assert len(out.buffers) == 1
        assert {k: (e.buffer_index, e.alignment) for k, e in entries.items()} == {
            "a": (0, 3),
            "b": (0, 4),
            "c": (0, 16),
            "d": (0, 4096),
            "e": (0, 1),
        }

    @clause("NDS-ALIGN-2")
    @pytest.mark.parametrize("tag", [None, "model"], ids=["inline", "external"])
    def test_readding_a_key_takes_the_lcm(self, impl: Implementation, tag: str | None) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("key", b"data", 4, tag)
        store.add_named_data("sharer", b"data", 4, tag)
        expected = 4
        for alignment in (6, 3, 12, 8, 1):
            store.add_named_data("key", b"data", alignment, tag)
            expected = math.lcm(expected, alignment)
            out = store.get_named_data_store_output()
            entries = out.pte_data if tag is None else out.external_data[tag]
            assert (entries["key"].alignment, entries["sharer"].alignment) == (expected, 4)
        assert len(store.get_named_data_store_output().buffers) == 1


class TestKeysWhoseMethodsLie:
    """A key or tag of a ``str`` subclass is the ``str`` of its characters (``str.__str__``),
    whatever any method of its own (``__str__``, ``__hash__``, ``__eq__``, ``__format__``,
    ``__fspath__``, ``join``, ...) says: drawn from every subset of them."""

    @clause("NDS-ADD-8")
    @relies_on("NDS-KEY-2", "NDS-KEY-1")  # an equal re-add of the plain key: one entry
    @settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        key=lying_strs("a"),
        other=lying_strs("b"),
        tag=lying_strs("t"),
        how=st.sampled_from(["add", "merge"]),
    )
    def test_a_key_or_tag_is_its_characters(
        self, impl: Implementation, key: str, other: str, tag: str, how: str
    ) -> None:
        store = impl.NamedDataStore()
        if how == "add":
            store.add_named_data(key, b"A", 4)
            store.add_named_data(other, b"B", 8, tag)
        else:
            store.merge_named_data_store(
                impl.NamedDataStoreOutput(
                    [b"A", b"B"],
                    {key: impl.DataEntry(0, 4, None)},
                    {tag: {other: impl.DataEntry(1, 8, None)}},
                )
            )
        store.add_named_data("a", b"A", 4)  # the same key, so no second entry
        assert exact(store) == [
            (None, "a", str, int),
            ("t", "b", str, int),
            ("t", None, str, int),
        ], f"keys {type(key).__name__} and {type(other).__name__}, tag {type(tag).__name__}"


class TestRejectedDataNamed:
    @clause("NDS-ADD-1")
    @pytest.mark.parametrize("data", REJECTED, ids=[type(v).__name__ for v in REJECTED])
    def test_the_message_names_the_type_as_a_word(self, impl: Implementation, data: object) -> None:
        """``type(data).__name__``, exactly, as a whole word (as CORD-TYPE-1 says)."""
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        with pytest.raises(TypeError) as raised:
            store.add_named_data("new", data)
        assert names_type(str(raised.value), data), (
            f"the message {str(raised.value)!r} does not name {type(data).__name__!r}"
        )
        assert state(store) == before


class TestValuesThatClaimAType:
    @clause("NDS-ADD-6", "NDS-ADD-5")
    @pytest.mark.parametrize("which", ["key", "tag", "alignment"])
    def test_a_value_whose_class_attribute_lies_is_refused_named(
        self, impl: Implementation, which: str
    ) -> None:
        """An object whose ``__class__`` says it is a ``str`` (or an ``int``) is none: the error
        names it, as for any other type (NDS-ADD-6, NDS-ADD-5), by its shown form, which for a
        value of no builtin type holds its type's name (Terms)."""
        liar = claiming(int if which == "alignment" else str)
        args: list[object] = ["new", b"new data", 1, None]
        args[{"key": 0, "tag": 3, "alignment": 2}[which]] = liar
        store = impl.NamedDataStore()
        store.add_named_data("kept", b"kept")
        before = state(store)
        with pytest.raises(TypeError, match=rf"\b{re.escape(type(liar).__name__)}\b"):
            store.add_named_data(*args)
        check(state(store) == before, "the store changed", "NDS-ADD-6")
