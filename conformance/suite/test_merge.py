"""NamedDataStore: outputs and merging (spec 4.5 and 4.6)."""

from __future__ import annotations

import gc
import io
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.api import (
    FileBackedData,
    Implementation,
    NamedDataStore,
    NamedDataStoreOutput,
)
from conformance.harness.checks import blame, check
from conformance.harness.classes import HandMadeMaps, hand_made_maps
from conformance.harness.helpers import (
    PREFIX,
    Blobs,
    State,
    content,
    duplicate_message,
    fresh,
    output_state,
    snapshot,
    state,
)

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on
# other_output() has a moved file that a bytes blob shares (by digest), seen by identity
SHARING = ("FBD-MOVE-1", "FBD-HASH-1", "NDS-DEDUP-6", "NDS-DEDUP-5", "NDS-OUT-2")
REPLAY = "NDS-MERGE-1"
"""What a merge does with an entry, and whether it finds it wrong, is seen only when it replays
the entry (external ones too): the tests of the other merge clauses rely on it."""

Blob = bytes | FileBackedData


def check_merge_refused(
    impl: Implementation,
    other: object,
    raised: type[Exception] | tuple[type[Exception], ...],
    match: str | None = None,
) -> None:
    """Merging ``other`` into a store holding one entry raises ``raised`` (its message matching
    ``match``) and leaves the store as it was."""
    target = impl.NamedDataStore()
    target.add_named_data("mine", b"mine")
    before = state(target)
    with pytest.raises(raised, match=match):
        target.merge_named_data_store(other)
    assert state(target) == before


@dataclass(frozen=True)
class Deep:
    """``other`` before and after a merge: containers, entries, buffers, and files on disk."""

    containers: tuple[int, ...]
    outline: State
    files: tuple[tuple[str, bool, bytes | None] | None, ...]


def deep(impl: Implementation, out: NamedDataStoreOutput) -> Deep:
    def on_disk(buffer: Blob) -> tuple[str, bool, bytes | None] | None:
        if isinstance(buffer, bytes):
            return None
        path = impl.path_of(buffer)
        exists = os.path.exists(path)
        return path, exists, Path(path).read_bytes() if exists else None

    containers = (
        id(out.buffers),
        id(out.pte_data),
        id(out.external_data),
        *(id(entries) for entries in out.external_data.values()),
    )
    return Deep(containers, output_state(out), tuple(on_disk(b) for b in out.buffers))


def readable(impl: Implementation, blob: FileBackedData, data: bytes) -> None:
    """``blob`` is open and still holds ``data``: read, streamed and on disk."""
    sink = io.BytesIO()
    blob.write_to_file(sink)
    assert (len(blob), blob.to_bytes(), sink.getvalue()) == (len(data), data, data)
    assert Path(impl.path_of(blob)).read_bytes() == data


def other_output(impl: Implementation, blobs: Blobs) -> tuple[NamedDataStoreOutput, list[Blob]]:
    """A source store's output: inline and two tags, bytes and files, a shared buffer."""
    made: list[Blob] = [
        fresh(b"inline bytes"),
        blobs.moved(PREFIX + b"moved file"),
        blobs.wrap(blobs.file(PREFIX + b"wrapped file")),
        fresh(b"tag two"),
    ]
    source = impl.NamedDataStore()
    source.add_named_data("o_inline", made[0], 4, None, ("layout", 1))
    source.add_named_data("o_moved", made[1], 16, "model_a")
    source.add_named_data("o_wrapped", made[2], 8, None)
    source.add_named_data("o_two", made[3], 1, "model_b")
    source.add_named_data("o_alias", fresh(PREFIX + b"moved file"), 64, "model_b")
    return source.get_named_data_store_output(), made


# --------------------------------------------------------------------------------------------
# 4.5 Outputs


class TestOutput:
    @clause("NDS-OUT-1")
    @relies_on("NDS-ADD-7", "NDS-DEDUP-1")  # layouts kept as given; alias shares inline's buffer
    def test_output_describes_the_store(self, impl: Implementation, blobs: Blobs) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("inline", b"one", 2)
        store.add_named_data("ext", blobs.moved(b"two"), 8, "model", ("layout",))
        store.add_named_data("alias", b"one", 4, "model")
        out = store.get_named_data_store_output()
        assert [content(b) for b in out.buffers] == [b"one", b"two"]
        assert (output_state(out).pte_data, output_state(out).external_data) == (
            (("inline", 0, 2, None),),
            (("model", (("ext", 1, 8, ("layout",)), ("alias", 0, 4, None))),),
        )

    @clause("NDS-OUT-1")
    @relies_on("NDS-KEY-3", "NDS-ADD-3")  # the adds that may leave a map behind must fail
    def test_no_empty_tag_map(self, impl: Implementation) -> None:
        store = impl.NamedDataStore()
        assert state(store) == State((), (), ())
        store.add_named_data("key", b"data", 1, "model")
        with pytest.raises(ValueError):
            store.add_named_data("key", b"other data", 1, "fresh")  # may leave a map behind
        with pytest.raises(ValueError):
            store.add_named_data("new", b"x", 0, "fresh too")
        out = store.get_named_data_store_output()
        assert list(out.external_data) == ["model"]
        assert all(len(entries) > 0 for entries in out.external_data.values())

    @clause("NDS-OUT-2")
    def test_buffers_are_the_stored_objects(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        made: list[Blob] = [fresh(b"bytes"), blobs.moved(b"moved"), blobs.wrap(blobs.file(b"w"))]
        files = sorted(os.listdir(tmp_path))
        store = impl.NamedDataStore()
        for i, blob in enumerate(made):
            store.add_named_data(f"k{i}", blob, 1, "model" if i else None)
        first, second = store.get_named_data_store_output(), store.get_named_data_store_output()
        assert all(b is m for b, m in zip(first.buffers, made, strict=True))
        assert all(b is m for b, m in zip(second.buffers, made, strict=True))
        assert sorted(os.listdir(tmp_path)) == files  # no file was copied

    @clause("NDS-OUT-3")
    @pytest.mark.parametrize(
        "change",
        [
            "add",
            pytest.param("add-then-merge-it", marks=relies_on(REPLAY)),  # seen through a merge
            "add-new-tag",
            "re-add",
            "merge",
            "merge-re-add",
        ],
    )
    def test_output_is_a_snapshot(self, impl: Implementation, change: str) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("inline", b"one")
        store.add_named_data("ext", b"two", 1, "model")
        earlier = store.get_named_data_store_output()
        before = output_state(store.get_named_data_store_output())  # ``earlier`` is not read yet
        if change.startswith("add-then"):
            store.add_named_data("later", b"three")
            store.add_named_data("later ext", b"four", 1, "model")
            target = impl.NamedDataStore()
            target.merge_named_data_store(earlier)  # what it holds, before anything reads it
            held = ([b"one", b"two"], {"inline": (0, 1, None)}, {"model": {"ext": (1, 1, None)}})
            assert snapshot(target) == held
        elif change == "add":
            store.add_named_data("later", b"three")
            store.add_named_data("later ext", b"four", 1, "model")
        elif change == "add-new-tag":
            store.add_named_data("later", b"three", 1, "new tag")
        elif change == "re-add":  # another alignment: both entries change in place
            store.add_named_data("inline", b"one", 8)
            store.add_named_data("ext", b"two", 8, "model")
        else:
            source = impl.NamedDataStore()
            if change == "merge":
                source.add_named_data("merged", b"five")
                source.add_named_data("merged ext", b"six", 1, "model")
            else:  # re-adds only, each map of the store changed by nothing else
                source.add_named_data("inline", b"one", 8)
                source.add_named_data("ext", b"two", 8, "model")
            store.merge_named_data_store(source.get_named_data_store_output())
        assert output_state(earlier) == before
        assert state(store) != before

    @clause("NDS-OUT-3")
    @pytest.mark.requires("externalize")
    def test_output_is_a_snapshot_across_externalize(self, impl: Implementation) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("inline", b"one")
        store.add_named_data("ext", b"two", 1, "model")
        earlier = store.get_named_data_store_output()
        before = output_state(earlier)
        store.externalize_pte_data(100, "constants")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
        assert output_state(earlier) == before
        assert state(store) != before


# --------------------------------------------------------------------------------------------
# 4.6 Merging


class TestMerge:
    @clause("NDS-MERGE-1")
    @relies_on(*SHARING)  # y shares on_disk's buffer; the state compared holds identities
    def test_replays_inline_first_then_each_tag_in_order(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        x, z, w, v, mine = (fresh(d) for d in (b"x", b"z", b"w", b"v", b"mine"))
        on_disk = blobs.moved(b"y")
        source = impl.NamedDataStore()
        source.add_named_data("x", x, 8, "t1", ("lx",))
        source.add_named_data("on_disk", on_disk, 2, "t1")
        source.add_named_data("y", fresh(b"y"), 4)  # shares on_disk's buffer in the source
        source.add_named_data("z", z, 16, "t2")
        source.add_named_data("w", w, 32, "t1")
        source.add_named_data("v", v, 1, None, ("lv",))
        target = impl.NamedDataStore()
        target.add_named_data("mine", mine, 2, "t2")
        target.merge_named_data_store(source.get_named_data_store_output())
        # Inline entries first (y, then v), then t1 (x, on_disk, w), then t2 (z).
        assert state(target) == State(
            tuple(map(id, (mine, on_disk, v, x, w, z))),
            (("y", 1, 4, None), ("v", 2, 1, ("lv",))),
            (
                ("t2", (("mine", 0, 2, None), ("z", 5, 16, None))),
                ("t1", (("x", 3, 8, ("lx",)), ("on_disk", 1, 2, None), ("w", 4, 32, None))),
            ),
        )

    @clause("NDS-MERGE-2")
    @relies_on(REPLAY, "NDS-MERGE-3")  # other's files are read to see them unchanged
    def test_other_is_not_mutated(self, impl: Implementation, blobs: Blobs) -> None:
        other, _ = other_output(impl, blobs)
        before = deep(impl, other)
        target = impl.NamedDataStore()
        target.add_named_data("t_inline", fresh(b"inline bytes"), 4, None, ("layout", 1))
        target.add_named_data("t_file", blobs.moved(PREFIX + b"wrapped file"))
        target.add_named_data("t_moved", blobs.wrap(blobs.file(PREFIX + b"moved file")))
        target.merge_named_data_store(other)
        assert deep(impl, other) == before
        target.merge_named_data_store(other)
        assert deep(impl, other) == before

    @clause("NDS-MERGE-3")
    def test_files_of_other_stay_open_and_readable(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        other, made = other_output(impl, blobs)
        mine = blobs.wrap(blobs.file(PREFIX + b"moved file"))  # equal to other's moved file
        for _ in range(2):
            target = impl.NamedDataStore()
            target.add_named_data("mine", mine)
            target.merge_named_data_store(other)
            target.merge_named_data_store(other)
            del target
            gc.collect()
        with blame("NDS-MERGE-3"):
            for blob in made:
                if not isinstance(blob, bytes):
                    readable(
                        impl, blob, PREFIX + (b"moved file" if blob is made[1] else b"wrapped file")
                    )
            readable(impl, mine, PREFIX + b"moved file")

    @clause("NDS-MERGE-2", "NDS-MERGE-3")
    # the two sides share by digest (NDS-DEDUP-6 across kinds), and the target keeps its own
    # object, seen by identity
    @relies_on(REPLAY, "FBD-MOVE-1", "FBD-HASH-1", "NDS-DEDUP-5", "NDS-OUT-2")
    @pytest.mark.parametrize(
        "kinds",
        [
            ("file", "file"),
            pytest.param(("bytes", "file"), marks=relies_on("NDS-DEDUP-6")),
            pytest.param(("file", "bytes"), marks=relies_on("NDS-DEDUP-6")),
        ],
    )
    def test_dedup_keeps_each_side_its_own_object(
        self, impl: Implementation, blobs: Blobs, kinds: tuple[str, str]
    ) -> None:
        data = PREFIX + b"the same weights"

        def blob(kind: str) -> Blob:
            return fresh(data) if kind == "bytes" else blobs.moved(data)

        theirs, mine = blob(kinds[0]), blob(kinds[1])
        source = impl.NamedDataStore()
        source.add_named_data("theirs", theirs, 1, "model")
        other = source.get_named_data_store_output()
        target = impl.NamedDataStore()
        target.add_named_data("mine", mine, 1, "model")
        target.merge_named_data_store(other)
        assert len(target.get_named_data_store_output().buffers) == 1
        assert target.get_named_data_store_output().buffers[0] is mine
        assert len(other.buffers) == 1 and other.buffers[0] is theirs
        with blame("NDS-MERGE-3"):
            for each in (theirs, mine):
                if not isinstance(each, bytes):
                    readable(impl, each, data)
        again = impl.NamedDataStore()
        again.merge_named_data_store(other)
        assert again.get_named_data_store_output().buffers[0] is theirs

    @clause("NDS-MERGE-4")
    @relies_on("NDS-ADD-7", "NDS-KEY-2")  # layouts stored as given; an equal re-add is a no-op
    def test_an_output_with_layouts_merged_again_changes_nothing(
        self, impl: Implementation
    ) -> None:
        """A store's own output, and a copy of it merged into a fresh store, merge again without
        a change: every entry, its layout included, is the one already there. Checked with fixed
        entries, so that every run reaches it (not only an example the store machine draws)."""
        store = impl.NamedDataStore()
        store.add_named_data("inline", b"inline weights", 4, None, "f32[2, 2]")
        store.add_named_data("shard", b"shard weights", 8, "shard_0", "u8[13]")
        before = state(store)
        with blame("NDS-MERGE-4"):
            store.merge_named_data_store(store.get_named_data_store_output())
        check(
            state(store) == before, "merging a store's own output again changed it", "NDS-MERGE-4"
        )
        other = impl.NamedDataStore()
        output = store.get_named_data_store_output()
        other.merge_named_data_store(output)
        merged = state(other)
        with blame("NDS-MERGE-4"):
            other.merge_named_data_store(output)
        check(
            state(other) == merged, "merging the same output again changed the store", "NDS-MERGE-4"
        )

    @clause("NDS-MERGE-4")
    # merging the output again needs it unchanged (NDS-MERGE-2) and its files open (NDS-MERGE-3)
    @relies_on(REPLAY, *SHARING, "NDS-MERGE-2", "NDS-MERGE-3")
    def test_same_output_into_several_stores_and_twice(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        other, made = other_output(impl, blobs)
        first = impl.NamedDataStore()
        first.add_named_data("own", b"own data", 1, "model_a")
        first.merge_named_data_store(other)
        after_one = state(first)
        first.merge_named_data_store(other)
        assert state(first) == after_one
        second, third = impl.NamedDataStore(), impl.NamedDataStore()
        second.merge_named_data_store(other)
        third.merge_named_data_store(other)
        assert state(second) == state(third)
        assert [id(b) for b in second.get_named_data_store_output().buffers] == [
            id(made[0]),
            id(made[2]),
            id(made[1]),
            id(made[3]),
        ]
        keys = {*other.pte_data, *(k for m in other.external_data.values() for k in m)}
        merged = second.get_named_data_store_output()
        assert {*merged.pte_data, *(k for m in merged.external_data.values() for k in m)} == keys

    @clause("NDS-MERGE-5")
    @pytest.mark.parametrize(
        "tag", [None, pytest.param("model", marks=relies_on(REPLAY))], ids=["inline", "external"]
    )
    def test_conflict_raises(self, impl: Implementation, blobs: Blobs, tag: str | None) -> None:
        source = impl.NamedDataStore()
        source.add_named_data("key.1", blobs.moved(b"data2 longer"), 1, tag)
        target = impl.NamedDataStore()
        target.add_named_data("key.1", b"data1", 1, tag)
        other = source.get_named_data_store_output()
        with pytest.raises(ValueError, match=duplicate_message("key.1", 5, 12)):
            target.merge_named_data_store(other)

    @clause("NDS-MERGE-6")
    @relies_on(REPLAY, "NDS-MERGE-5")  # the merge fails by its conflicting key
    @pytest.mark.parametrize("tag", [None, "model_b"], ids=["inline", "external"])
    def test_failed_merge_leaves_the_target_as_it_was(
        self, impl: Implementation, blobs: Blobs, tag: str | None
    ) -> None:
        source = impl.NamedDataStore()
        source.add_named_data("new inline", b"new inline")
        source.add_named_data("shared", b"same in both", 8)
        source.add_named_data("new ext", blobs.moved(b"new file"), 4, "model_a")
        source.add_named_data("new ext 2", b"new ext 2", 4, "model_b")
        source.add_named_data("conflict", PREFIX + b"theirs", 1, tag)  # replayed last
        target = impl.NamedDataStore()
        target.add_named_data("shared", b"same in both", 2)
        target.add_named_data("conflict", PREFIX + b"mine!!", 1, tag)
        before = state(target)
        with pytest.raises(ValueError, match=duplicate_message("conflict", 38, 38)):
            target.merge_named_data_store(source.get_named_data_store_output())
        assert state(target) == before

    @clause("NDS-MERGE-1")
    @pytest.mark.parametrize("tag", [None, "model"], ids=["inline", "tag"])
    def test_a_re_add_merged_changes_the_entry_where_it_is(
        self, impl: Implementation, tag: str | None
    ) -> None:
        def stored() -> NamedDataStore:
            store = impl.NamedDataStore()
            store.add_named_data("w", b"weights", 2, tag)
            store.add_named_data("other", b"other", 1, "model")
            return store

        source = impl.NamedDataStore()
        source.add_named_data("w", b"weights", 8, tag)
        target, added = stored(), stored()
        target.merge_named_data_store(source.get_named_data_store_output())
        added.add_named_data("w", b"weights", 8, tag)
        assert snapshot(target) == snapshot(added)

    @clause("NDS-MERGE-1")
    @relies_on("NDS-ADD-3", "NDS-ADD-5", "NDS-ADD-6")  # add's own checks are the measure
    @pytest.mark.parametrize(
        ("key", "alignment"),
        [(5, 1), ("k", True), ("k", 0), ("k", -8), ("k", "8"), ("k", 2.0)],
        ids=["key-int", "alignment-True", "alignment-0", "alignment-negative", "alignment-str",
             "alignment-float"],
    )  # fmt: skip
    def test_an_entry_is_checked_as_add_checks_it(
        self, impl: Implementation, key: object, alignment: object
    ) -> None:
        # a new bytes blob under a new key: the common case, which a merge may take a short way
        target, added = impl.NamedDataStore(), impl.NamedDataStore()
        for store in (target, added):
            store.add_named_data("mine", b"mine")
        before = snapshot(target)
        other = impl.NamedDataStoreOutput([b"blob"], {key: impl.DataEntry(0, alignment, None)}, {})
        try:
            added.add_named_data(key, b"blob", alignment)
        except (TypeError, ValueError) as refused:
            with pytest.raises(type(refused)):
                target.merge_named_data_store(other)
            assert snapshot(target) == before
        else:  # what add takes, the merge takes, and gives what add gives
            target.merge_named_data_store(other)
            assert snapshot(target) == snapshot(added)

    @clause("NDS-MERGE-7")
    @pytest.mark.parametrize(
        "case",
        [
            "key-in-pte-and-external",
            "key-in-two-tags",
            "index-too-big",
            "index-negative",
            "index-str",
            "index-float",
            "index-None",
            "index-True",
            "index-False",
        ],
    )
    @relies_on(REPLAY)  # a bad entry under a tag is found by a merge that replays the tags
    def test_malformed_other(self, impl: Implementation, case: str) -> None:
        buffers = [b"zero", b"one"]
        good = impl.DataEntry(0, 1, None)
        index: object = {
            "index-too-big": 2,
            "index-negative": -1,
            "index-str": "1",
            "index-float": 1.0,
            "index-None": None,
            "index-True": True,  # an int that indexes buffer 1: only a bool check rejects it
            "index-False": False,
        }.get(case, 1)
        bad = impl.DataEntry(index, 4, None)
        pte = (
            {"good": good, "bad_key": bad} if case == "key-in-pte-and-external" else {"good": good}
        )
        external = {"model": {"good ext": impl.DataEntry(1, 1, None), "bad_key": bad}}
        if case == "key-in-two-tags":
            external["other"] = {"bad_key": bad}
        other = impl.NamedDataStoreOutput(buffers, pte, external)
        check_merge_refused(impl, other, ValueError, "bad_key")

    @clause("NDS-MERGE-7")
    @pytest.mark.parametrize(
        ("case", "named"),
        [
            ("entry-tuple", "bad_key"),
            ("pte-None", "pte_data"),
            ("external-None", "external_data"),
            ("tag-map-None", r"external_data\['model'\]"),
            ("buffers-None", "buffers"),
        ],
    )
    def test_malformed_other_of_another_type(
        self, impl: Implementation, case: str, named: str
    ) -> None:
        good = impl.DataEntry(0, 1, None)
        buffers: object = None if case == "buffers-None" else [b"zero", b"one"]
        pte: object = None if case == "pte-None" else {"good": good}
        bad: object = (1, 4, None) if case == "entry-tuple" else impl.DataEntry(1, 4, None)
        external: object = {"model": {"good ext": good, "bad_key": bad}}
        if case == "external-None":
            external = None
        elif case == "tag-map-None":
            external = {"model": None}
        other = impl.NamedDataStoreOutput(buffers, pte, external)
        check_merge_refused(impl, other, TypeError, named)

    @clause("NDS-MERGE-1")
    @pytest.mark.parametrize(
        "other",
        [None, {"buffers": [], "pte_data": {}, "external_data": {}}, object()],
        ids=["None", "dict", "object"],
    )
    def test_other_that_is_not_an_output(self, impl: Implementation, other: object) -> None:
        check_merge_refused(impl, other, (AttributeError, TypeError))

    @clause("NDS-MERGE-7")
    @relies_on(REPLAY)
    @pytest.mark.parametrize("where", ["pte_data", "external_data[tag]"])
    def test_buffers_that_shrink_while_read(self, impl: Implementation, where: str) -> None:
        buffers = [b"zero", b"one", b"two"]

        def hook() -> None:
            del buffers[1:]  # code run by reading the maps: the indices checked no longer hold

        entries = {"x": impl.DataEntry(0, 1, None), "y": impl.DataEntry(2, 1, None)}
        lazy = Reentrant(entries, hook)
        other = impl.NamedDataStoreOutput(
            buffers,
            lazy if where == "pte_data" else {"w": impl.DataEntry(1, 1, None)},
            {} if where == "pte_data" else {"model": lazy},
        )
        check_merge_refused(impl, other, ValueError, "buffers")

    @clause("NDS-MERGE-8")
    @relies_on(REPLAY)
    def test_new_file_buffer_is_the_same_object(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        theirs = blobs.moved(PREFIX + b"a large file")
        source = impl.NamedDataStore()
        source.add_named_data("theirs", theirs, 16, "model")
        other = source.get_named_data_store_output()
        files = sorted(os.listdir(tmp_path))
        target = impl.NamedDataStore()
        target.add_named_data("mine", b"mine")
        target.merge_named_data_store(other)
        buffers = target.get_named_data_store_output().buffers
        assert len(buffers) == 2 and buffers[1] is theirs
        assert sorted(os.listdir(tmp_path)) == files  # nothing copied
        del target, buffers, source
        gc.collect()  # the target never owned it: dropping the stores releases nothing
        readable(impl, theirs, PREFIX + b"a large file")

    @clause("NDS-MERGE-9")
    @relies_on(REPLAY, "NDS-KEY-2", "NDS-ALIGN-2")  # the intruder's add and realign are add's
    @pytest.mark.parametrize("where", ["pte_data", "external_data[tag]", "property"])
    @pytest.mark.parametrize("intruder", ["adds", "realigns"])
    def test_input_that_changes_the_target_while_read(
        self, impl: Implementation, where: str, intruder: str
    ) -> None:
        def intrude(store: NamedDataStore) -> None:
            if intruder == "adds":  # a new key and buffer: staged indices would be stale
                store.add_named_data("intruder", PREFIX + b"intruder's bytes")
            else:  # the same counts, one entry changed: a staged realign would undo it
                store.add_named_data("t", PREFIX + b"target", 8)

        def prepared() -> NamedDataStore:
            store = impl.NamedDataStore()
            store.add_named_data("t", PREFIX + b"target")
            return store

        target, expected = prepared(), prepared()
        intrude(expected)
        fired: list[bool] = []

        def hook() -> None:
            if not fired:  # once, on the first read, however often the merge reads
                fired.append(True)
                intrude(target)

        buffers = [PREFIX + b"x's bytes", PREFIX + b"y's bytes", PREFIX + b"target"]
        entries = {"x": impl.DataEntry(0, 1, None), "y": impl.DataEntry(1, 1, None)}
        pte: object = {**entries, "t": impl.DataEntry(2, 4, None)}
        external: object = {}
        if where == "pte_data":
            pte = Reentrant({**entries, "t": impl.DataEntry(2, 4, None)}, hook)
        elif where == "external_data[tag]":
            pte = {"t": impl.DataEntry(2, 4, None)}
            external = {"model": Reentrant(entries, hook)}
        other: object = impl.NamedDataStoreOutput(buffers, pte, external)
        if where == "property":
            other = Lazily(other, hook)
        with pytest.raises(RuntimeError):
            target.merge_named_data_store(other)
        assert fired
        assert snapshot(target) == snapshot(expected)


class Reentrant(Mapping[str, object]):
    """A mapping that runs ``hook`` when it is first iterated: a lazy mapping of an output."""

    def __init__(self, entries: Mapping[str, object], hook: Callable[[], None]) -> None:
        self._entries, self._hook = entries, hook

    def __getitem__(self, key: str) -> object:
        return self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[str]:
        self._hook()
        return iter(self._entries)


class Lazily:
    """An output whose ``pte_data`` is a property that runs ``hook`` when it is read."""

    def __init__(self, output: object, hook: Callable[[], None]) -> None:
        self._output, self._hook = output, hook
        self.buffers = output.buffers  # type: ignore[attr-defined]  # an output
        self.external_data = output.external_data  # type: ignore[attr-defined]  # an output

    @property
    def pte_data(self) -> object:
        self._hook()
        return self._output.pte_data  # type: ignore[attr-defined]  # an output


# --------------------------------------------------------------------------------------------
# Property: merging never changes `other`, and merging again changes nothing

ITEMS = st.lists(
    st.tuples(
        st.sampled_from([b"a", b"b", PREFIX + b"x", PREFIX + b"y", b""]),
        st.sampled_from([None, "t1", "t2"]),
        st.sampled_from([1, 4, 6]),
    ),
    max_size=8,
)


class TestMergeProperty:
    """Merging, as a property over random stores."""

    @clause("NDS-MERGE-1", "NDS-MERGE-2", "NDS-MERGE-4")
    # a merge is a replay of add: what each key holds afterwards is add's dedup, by identity
    @relies_on("NDS-DEDUP-1", "NDS-DEDUP-2", "NDS-DEDUP-5", "NDS-OUT-2")
    # ``impl`` is an immutable description, so it may be function-scoped (a user's override):
    # sharing it across examples is right, and Hypothesis's health check would refuse it.
    @settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(mine=ITEMS, theirs=ITEMS, shared=st.lists(st.integers(0, 3), max_size=4, unique=True))
    def test_merge_property(
        self,
        impl: Implementation,
        mine: list[tuple[bytes, str | None, int]],
        theirs: list[tuple[bytes, str | None, int]],
        shared: list[int],
    ) -> None:
        def fill(items: list[tuple[bytes, str | None, int]], prefix: str) -> NamedDataStore:
            store = impl.NamedDataStore()
            for j in shared:  # the same key, contents, place and alignment on both sides
                store.add_named_data(
                    f"shared{j}", f"shared {j}".encode(), 2**j, "t1" if j % 2 else None
                )
            for i, (data, tag, alignment) in enumerate(items):
                store.add_named_data(f"{prefix}{i}", fresh(data), alignment, tag)
            return store

        target = fill(mine, "mine")
        other = fill(theirs, "theirs").get_named_data_store_output()
        before = deep(impl, other)
        target.merge_named_data_store(other)
        merged = state(target)
        check(deep(impl, other) == before, "the merge changed other", "NDS-MERGE-2")
        target.merge_named_data_store(other)
        check(state(target) == merged, "merging again changed the target", "NDS-MERGE-4")
        check(deep(impl, other) == before, "merging again changed other", "NDS-MERGE-2")
        out = target.get_named_data_store_output()
        contents = {
            k: content(out.buffers[e.buffer_index])
            for entries in (out.pte_data, *out.external_data.values())
            for k, e in entries.items()
        }
        expected = {f"shared{j}": f"shared {j}".encode() for j in shared}
        expected |= {f"mine{i}": data for i, (data, _, _) in enumerate(mine)}
        expected |= {f"theirs{i}": data for i, (data, _, _) in enumerate(theirs)}
        check(set(contents) == set(expected), f"keys {sorted(contents)} merged", "NDS-MERGE-1")
        assert contents == expected
        assert sorted(content(b) for b in out.buffers) == sorted(set(expected.values()))


class TestRecords:
    """DataEntry and NamedDataStoreOutput are plain records."""

    @clause("NDS-OUT-4")
    def test_records_keep_any_values_as_given(self, impl: Implementation) -> None:
        alignment, layout = object(), ["a", "mutable", "layout"]
        entry: object = impl.DataEntry("not an index", alignment, layout)
        assert getattr(entry, "buffer_index") == "not an index"  # noqa: B009
        assert getattr(entry, "alignment") is alignment  # noqa: B009
        assert getattr(entry, "tensor_layout") is layout  # noqa: B009
        buffers, pte_data, external_data = ("a", "tuple"), {"k": 5}, None
        output: object = impl.NamedDataStoreOutput(buffers, pte_data, external_data)
        assert getattr(output, "buffers") is buffers  # noqa: B009  # typed as a well-formed output
        assert getattr(output, "pte_data") is pte_data  # noqa: B009
        assert getattr(output, "external_data") is external_data  # noqa: B009


# --------------------------------------------------------------------------------------------
# Hand-made outputs: each map replayed in its own order, whatever order its buffers are in

CONTENTS = st.sampled_from([b"a", b"b", PREFIX + b"x", PREFIX + b"y", b""])


def _hand_made(
    impl: Implementation,
    buffers: list[bytes],
    inline: list[tuple[str, int]],
    tags: list[tuple[str, list[tuple[str, int]]]],
) -> NamedDataStoreOutput:
    def entries(pairs: list[tuple[str, int]]) -> dict[str, Any]:
        return {key: impl.DataEntry(index, 1 + ord(key) % 3, (key,)) for key, index in pairs}

    return impl.NamedDataStoreOutput(
        buffers, entries(inline), {tag: entries(pairs) for tag, pairs in tags}
    )


class TestMergeOrderOfHandMadeOutputs:
    @clause("NDS-MERGE-1")
    @relies_on("NDS-DEDUP-1", "NDS-DEDUP-2", "NDS-DEDUP-5", "NDS-OUT-2")  # replayed adds' dedup
    @settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        contents=st.lists(CONTENTS, min_size=4, max_size=4),
        maps=hand_made_maps(4),
        mine=st.sampled_from([None, b"a", PREFIX + b"y"]),
    )
    def test_each_map_is_replayed_in_its_own_order(
        self,
        impl: Implementation,
        contents: list[bytes],
        maps: HandMadeMaps,
        mine: bytes | None,
    ) -> None:
        """A hand-made output whose maps list their keys in an order of their own (not their
        buffers'), and its tags in any order: merging it is adding its inline entries in their
        map's order, then each tag's in theirs (NDS-MERGE-1)."""
        buffers = [fresh(b) for b in contents]
        inline, tags = maps
        other = _hand_made(impl, buffers, inline, tags)
        target, replayed = impl.NamedDataStore(), impl.NamedDataStore()
        if mine is not None:
            kept = fresh(mine)
            for store in (target, replayed):
                store.add_named_data("mine", kept, 2, "t2")
        target.merge_named_data_store(other)
        for tag, pairs in [(None, inline), *tags]:
            for key, index in pairs:
                replayed.add_named_data(key, buffers[index], 1 + ord(key) % 3, tag, (key,))
        assert state(target) == state(replayed), (
            f"merging maps in the order {inline} then {tags} is not adding them in that order"
        )


# --------------------------------------------------------------------------------------------
# Maps and buffer lists of other kinds: a mapping is read as a dict, a sequence as a list


class _Entries(Mapping[str, Any]):
    """A read-only mapping of the caller's own: a ``Mapping``, not a ``dict``."""

    def __init__(self, entries: dict[str, Any]) -> None:
        self._entries = entries

    def __getitem__(self, key: str) -> Any:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


class TestMapsOfOtherKinds:
    @clause("NDS-MERGE-7")
    @relies_on(REPLAY)  # compared with the merge of the same output as dicts and a list
    @pytest.mark.parametrize("kind", ["MappingProxyType", "Mapping", "tuple"])
    def test_a_mapping_and_a_sequence_are_read_as_a_dict_and_a_list(
        self, impl: Implementation, kind: str
    ) -> None:
        buffers = [fresh(b"zero"), fresh(b"one"), fresh(b"two")]
        pte = {"b": impl.DataEntry(1, 2, None), "a": impl.DataEntry(0, 1, None)}
        tagged = {"c": impl.DataEntry(2, 4, ("c",))}
        wrap: Callable[[dict[str, Any]], Mapping[str, Any]] = {
            "MappingProxyType": MappingProxyType,
            "Mapping": _Entries,
            "tuple": dict,
        }[kind]
        other = impl.NamedDataStoreOutput(
            tuple(buffers) if kind == "tuple" else buffers,
            wrap(pte),
            wrap({"model": wrap(tagged)}),
        )
        merged, expected = impl.NamedDataStore(), impl.NamedDataStore()
        merged.merge_named_data_store(other)
        expected.merge_named_data_store(
            impl.NamedDataStoreOutput(buffers, dict(pte), {"model": dict(tagged)})
        )
        assert state(merged) == state(expected)

    @clause("NDS-MERGE-7")
    @pytest.mark.parametrize(
        ("case", "named"),
        [
            ("pte-pairs", "pte_data"),
            ("external-pairs", "external_data"),
            ("tag-map-pairs", r"external_data\['model'\]"),
            ("buffers-set", "buffers"),
            ("buffers-generator", "buffers"),
        ],
    )
    def test_what_is_not_a_mapping_or_a_sequence_is_a_type_error(
        self, impl: Implementation, case: str, named: str
    ) -> None:
        entry = impl.DataEntry(0, 1, None)
        buffers: object = [b"zero"]
        pte: object = {"a": entry}
        external: object = {"model": {"b": entry}}
        if case == "pte-pairs":
            pte = [("a", entry)]
        elif case == "external-pairs":
            external = [("model", {"b": entry})]
        elif case == "tag-map-pairs":
            external = {"model": [("b", entry)]}
        elif case == "buffers-set":
            buffers = {b"zero"}
        else:
            buffers = (b for b in [b"zero"])
        target = impl.NamedDataStore()
        target.add_named_data("mine", b"mine")
        before = state(target)
        with pytest.raises(TypeError, match=named):
            target.merge_named_data_store(impl.NamedDataStoreOutput(buffers, pte, external))
        assert state(target) == before
