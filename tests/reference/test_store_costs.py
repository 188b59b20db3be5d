"""NamedDataStore: a merge's and an output's work does not grow with the store, and
interrupted commits are undone; work is counted by containers that count what is read of them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

import reference
from conformance import environment
from conformance.harness.interrupts import interrupted
from reference import DataEntry, NamedDataStore, NamedDataStoreOutput
from reference.named_data import FINGERPRINT_PREFIX

pytestmark = pytest.mark.mutation  # the mutation run includes every test here

PREFIX = b"P" * FINGERPRINT_PREFIX


class Reads:
    """How many elements the counting containers handed out, all together."""

    count = 0


class CountingList(list[Any]):
    def __iter__(self) -> Iterator[Any]:
        for item in super().__iter__():
            Reads.count += 1
            yield item

    def __getitem__(self, index: Any) -> Any:
        got = super().__getitem__(index)
        Reads.count += len(got) if isinstance(index, slice) else 1
        return got

    def copy(self) -> list[Any]:
        Reads.count += len(self)
        return super().copy()


class CountingDict(dict[Any, Any]):
    def __iter__(self) -> Iterator[Any]:
        for key in super().__iter__():
            Reads.count += 1
            yield key

    def items(self) -> Any:
        Reads.count += len(self)  # an items view is read whole by whoever asks for it
        return super().items()

    def keys(self) -> Any:
        Reads.count += len(self)
        return super().keys()

    def values(self) -> Any:
        Reads.count += len(self)
        return super().values()

    def copy(self) -> dict[Any, Any]:
        Reads.count += len(self)
        return super().copy()


def counting(store: NamedDataStore) -> NamedDataStore:
    """``store`` with every container replaced by a counting one."""
    store.buffers = CountingList(store.buffers)
    store.pte_data = CountingDict(store.pte_data)
    store.external_data = CountingDict(
        {tag: CountingDict(entries) for tag, entries in store.external_data.items()}
    )
    for name in ("_tags", "_fps", "_index", "_ids", "_digests"):
        setattr(store, name, CountingDict(getattr(store, name)))
    store._lent.clear()  # the counting maps are copies that no output reads
    return store


def blob(i: int) -> bytes:
    return i.to_bytes(8, "little", signed=True) * 4 + b"tail"


def store_of(n: int, output: bool = True) -> NamedDataStore:
    store = NamedDataStore()
    for i in range(n):
        store.add_named_data(f"k{i}", blob(i), 1, "weights" if i % 2 else None)
    store.add_named_data("collide 1", PREFIX + b"1")
    store.add_named_data("collide 2", PREFIX + b"2")  # the digest index holds two buffers
    if output:
        store.get_named_data_store_output()  # an output lent the containers
    return counting(store)


def small_output() -> NamedDataStoreOutput:
    source = NamedDataStore()
    for i in range(10):
        source.add_named_data(f"new{i}", blob(-1 - i), 1, "weights" if i % 2 else "new tag")
    source.add_named_data("k0", blob(0), 8)  # a re-add with another alignment, into a lent map
    source.add_named_data("collide 3", PREFIX + b"3")
    source.add_named_data("collide 1 again", PREFIX + b"1")
    return source.get_named_data_store_output()


def work(call: Any) -> int:
    Reads.count = 0
    call()
    return Reads.count


@pytest.mark.parametrize("output", [False, True], ids=["no-output", "after-an-output"])
def test_a_merge_does_not_read_the_target(output: bool) -> None:
    counts = []
    for n in (100, 10_000):
        store, other = store_of(n, output), small_output()
        counts.append(work(lambda: store.merge_named_data_store(other)))  # noqa: B023
        assert "new9" in store.get_named_data_store_output().external_data["weights"]
    assert counts[0] == counts[1]
    assert counts[1] < 100  # only what the merge touches of the lent map it copies: none here


def test_an_output_and_the_adds_after_it_do_not_read_the_store() -> None:
    counts = []
    for n in (100, 10_000):
        store = store_of(n)

        def outputs(store: NamedDataStore = store) -> None:
            for i in range(10):
                store.add_named_data(f"more{i}", blob(-100 - i), 1, "weights")
                store.get_named_data_store_output()

        counts.append(work(outputs))
    assert counts[0] == counts[1] <= 10 * 2  # each output reads the list of tags: O(tags)


def test_reading_an_output_reads_what_it_holds_once() -> None:
    store = store_of(1000)
    out = store.get_named_data_store_output()
    store.add_named_data("later", b"later")
    first = work(lambda: (out.buffers, out.pte_data, out.external_data))
    assert first >= 1000  # copied on the first read, ...
    assert work(lambda: (out.buffers, out.pte_data, out.external_data)) == 0  # ... once
    assert "later" not in out.pte_data and len(out.buffers) == 1002


def test_colliding_blobs_are_settled_by_the_index_not_a_scan() -> None:
    counts = []
    for n in (100, 10_000):
        store = NamedDataStore()
        for i in range(n):
            store.add_named_data(f"c{i}", PREFIX + i.to_bytes(4, "little"))
        store = counting(store)
        counts.append(work(lambda: store.add_named_data("one more", PREFIX + b"more")))  # noqa: B023
    assert counts[0] == counts[1] == 0


# --------------------------------------------------------------------------------------------
# Interrupted commits, injected in the containers' own calls


class Interrupting(dict[Any, Any]):
    """A dict whose ``method`` raises KeyboardInterrupt on ``times`` calls after the first
    ``skip``."""

    def __init__(self, data: dict[Any, Any], method: str, times: int = 1, skip: int = 0) -> None:
        super().__init__(data)
        self.method, self.times, self.skip = method, times, skip

    def _maybe(self, method: str) -> None:
        if method != self.method:
            return
        if self.skip:
            self.skip -= 1
        elif self.times:
            self.times -= 1
            raise KeyboardInterrupt(method)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._maybe("__setitem__")
        super().__setitem__(key, value)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._maybe("update")
        super().update(*args, **kwargs)

    def pop(self, *args: Any) -> Any:
        self._maybe("pop")
        return super().pop(*args)


def outline(store: NamedDataStore) -> tuple[object, ...]:
    """What an undone call must leave as it was; the indexes may have learned more of the stored
    buffers meanwhile (digests, index entries), but nothing of a buffer that is gone."""
    out = store.get_named_data_store_output()
    count = len(store.buffers)
    dangling = (
        sorted(i for i in store._digests if i >= count),
        sorted(i for i in store._index.values() if i >= count),
        sorted(i for b, i in store._ids.items() if i >= count or id(store.buffers[i]) != b),
    )
    return (
        [id(b) for b in out.buffers],
        dict(out.pte_data),
        {tag: dict(entries) for tag, entries in out.external_data.items()},
        sorted(store.external_data),  # an emptied map of a tag is gone too
        dict(store._tags),
        dict(store._fps),
        dangling,
    )


@pytest.mark.parametrize("tag", [None, "weights", "new tag"])
@pytest.mark.parametrize("second", [False, True], ids=["once", "again-during-the-undo"])
def test_an_add_interrupted_in_its_last_step_is_undone(tag: str | None, second: bool) -> None:
    store = store_of(4, output=False)
    before = outline(store)
    store._tags = Interrupting(store._tags, "__setitem__")
    if second:
        store._fps = Interrupting(store._fps, "pop")  # the undo is interrupted too, and rerun
    with pytest.raises(KeyboardInterrupt):
        store.add_named_data("new", b"a new blob", 1, tag)
    assert outline(store) == before


@pytest.mark.parametrize("second", [False, True], ids=["once", "again-during-the-undo"])
def test_a_merge_interrupted_in_its_last_step_is_undone(second: bool) -> None:
    store = store_of(20)
    before = outline(store)
    store._tags = Interrupting(store._tags, "update")
    if second:
        store._digests = Interrupting(store._digests, "pop")
    with pytest.raises(KeyboardInterrupt):
        store.merge_named_data_store(small_output())
    assert outline(store) == before
    store._tags = dict(store._tags)
    store.merge_named_data_store(small_output())  # and the store goes on
    assert store.get_named_data_store_output().pte_data["k0"].alignment == 8


@pytest.mark.parametrize("skip", [0, 1], ids=["first-tag", "second-tag"])
def test_a_merge_into_an_empty_store_interrupted_at_the_end_is_undone(skip: int) -> None:
    store = NamedDataStore()
    store._tags = Interrupting(store._tags, "update", skip=skip)  # one update per tag's keys
    with pytest.raises(KeyboardInterrupt):
        store.merge_named_data_store(small_output())
    assert outline(store) == outline(NamedDataStore())
    assert (store.pte_data, store.external_data, store.buffers) == ({}, {}, [])
    store._tags = dict(store._tags)
    store.merge_named_data_store(small_output())  # and the store goes on
    assert len(store.get_named_data_store_output().external_data["new tag"]) == 5


def test_an_interrupted_collision_is_undone() -> None:
    store = store_of(4, output=False)
    before = outline(store)
    store._tags = Interrupting(store._tags, "update")
    with pytest.raises(KeyboardInterrupt):
        store.add_named_data("collide 3", PREFIX + b"3")
    assert outline(store) == before


def test_a_re_add_into_a_lent_map_copies_it_once() -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"a", 2, "weights")
    store.add_named_data("b", b"b", 2, "weights")
    out = store.get_named_data_store_output()
    store.add_named_data("a", b"a", 4, "weights")
    store.add_named_data("b", b"b", 8, "weights")
    assert [e.alignment for e in out.external_data["weights"].values()] == [2, 2]
    now = store.get_named_data_store_output().external_data["weights"]
    assert [e.alignment for e in now.values()] == [4, 8]
    # lent by place: the last output's, the copy made for the re-adds included
    assert store._lent == {None, "weights"}


def test_a_merged_re_add_copies_only_the_lent_map_it_changes() -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"a", 2, "changed")
    store.add_named_data("b", b"b", 2, "grown")
    grown = store.external_data["grown"]
    store.get_named_data_store_output()
    source = NamedDataStore()
    source.add_named_data("a", b"a", 8, "changed")  # an entry replaced: that map is copied
    source.add_named_data("c", b"c", 2, "grown")  # an entry added: that map only grows
    store.merge_named_data_store(source.get_named_data_store_output())
    assert store.external_data["grown"] is grown and list(grown) == ["b", "c"]


def test_a_snapshot_has_no_other_attributes() -> None:
    out = NamedDataStore().get_named_data_store_output()
    with pytest.raises(AttributeError) as raised:
        getattr(out, "nothing")  # noqa: B009  (no such attribute: the point)
    assert str(raised.value) == "'NamedDataStoreOutput' object has no attribute 'nothing'"
    assert out.buffers == [] and out.pte_data == {} and out.external_data == {}
    del out.buffers
    with pytest.raises(AttributeError, match="buffers"):
        out.buffers  # noqa: B018


# --------------------------------------------------------------------------------------------
# The campaign: interrupts at random lines of adds and merges (CORDSPEC_INTERRUPT_TRIALS each)

TRIALS = environment.INTERRUPT_TRIALS.get()


def orphans(store: NamedDataStore) -> set[int]:
    out = store.get_named_data_store_output()
    used = {e.buffer_index for m in (out.pte_data, *out.external_data.values()) for e in m.values()}
    return set(range(len(out.buffers))) - used


@pytest.mark.parametrize("kind", ["add", "merge"])
def test_interrupt_campaign_leaves_no_orphan_buffer(kind: str) -> None:
    rng = random.Random(14)
    interrupted_runs = 0
    while interrupted_runs < TRIALS:
        store = store_of(rng.randrange(0, 6), output=rng.random() < 0.5)
        keys = set(store._tags)
        if kind == "add":
            i = rng.randrange(8)
            data = [b"new", PREFIX + b"x", blob(0), PREFIX + b"1"][i % 4]
            tag = [None, "weights", "t"][i % 3]

            def call(
                store: NamedDataStore = store, data: bytes = data, tag: Any = tag, i: int = i
            ) -> None:
                store.add_named_data("new", data, 1 + i % 3, tag)

            added = {"new"}
        else:
            other = small_output()

            def call(store: NamedDataStore = store, other: Any = other) -> None:
                store.merge_named_data_store(other)

            added = {k for m in (other.pte_data, *other.external_data.values()) for k in m}
        if not interrupted(call, rng.randrange(1, 120)):
            continue
        interrupted_runs += 1
        assert orphans(store) == set()
        now = set(store._tags)
        assert now in (keys, keys | added)
        call()  # the store goes on
        assert orphans(store) == set() and set(store._tags) == keys | added
    assert interrupted_runs == TRIALS


def test_a_data_entry_is_reused_only_where_it_holds() -> None:
    other = small_output()
    store = NamedDataStore()
    store.merge_named_data_store(other)
    out = store.get_named_data_store_output()
    # inline entries are replayed first: k0 moves from index 10 to 0, new0 (tag) stays elsewhere
    assert out.pte_data["k0"] == DataEntry(0, 8, None) != other.pte_data["k0"]
    mine, theirs = out.external_data["weights"]["new1"], other.external_data["weights"]["new1"]
    assert (mine is theirs) == (mine.buffer_index == theirs.buffer_index)
    assert reference.NamedDataStoreOutput is NamedDataStoreOutput


def crafted() -> NamedDataStoreOutput:
    """An output that takes every branch of staging against ``lone_store()``."""
    z = b"Z" * FINGERPRINT_PREFIX + b"1"
    named = [
        ("copy of 1", PREFIX + b"1"),  # equal to the stored lone buffer, another object
        ("2", PREFIX + b"2"),  # a second buffer for the stored fingerprint
        ("x", PREFIX + b"x"),  # staged, colliding
        ("y", PREFIX + b"y"),
        ("y copy", PREFIX + b"y"),  # equal to a staged buffer of the digest index
        ("z", z),  # a fingerprint of its own
        ("z copy", bytes(bytearray(z))),  # equal to a staged lone buffer
        ("z copy 2", bytes(bytearray(z))),  # ... again: its digest is known
    ]
    buffers = [data for _, data in named]
    pte = {key: DataEntry(i, 1, None) for i, (key, _) in enumerate(named) if key != "2"}
    pte["x again"] = DataEntry(2, 1, None)  # the very object of a staged buffer again
    return NamedDataStoreOutput(buffers, pte, {"new tag": {"2": DataEntry(1, 1, None)}})


def lone_store() -> NamedDataStore:
    store = NamedDataStore()
    store.add_named_data("1", PREFIX + b"1")
    store.add_named_data("other", b"other")
    return store


@pytest.mark.parametrize("where", ["_fps", "_tags"])
def test_a_merge_through_every_staging_branch_is_undone_or_done(where: str) -> None:
    store = lone_store()
    before = outline(store)
    setattr(store, where, Interrupting(getattr(store, where), "update"))
    with pytest.raises(KeyboardInterrupt):
        store.merge_named_data_store(crafted())
    assert outline(store) == before
    setattr(store, where, dict(getattr(store, where)))
    store.merge_named_data_store(crafted())
    out = store.get_named_data_store_output()
    assert len(out.buffers) == 2 + 4 and orphans(store) == set()
    assert out.pte_data["copy of 1"].buffer_index == out.pte_data["1"].buffer_index
    assert out.pte_data["x again"] == out.pte_data["x"]
    assert out.pte_data["y copy"].buffer_index == out.pte_data["y"].buffer_index


@pytest.mark.parametrize("where", ["_digests", "_index", "_ids"])
def test_an_undo_interrupted_after_part_of_it_is_done_runs_again_to_its_end(where: str) -> None:
    # The second interrupt lands after the undo has dropped one entry of ``where``: the rerun
    # must take an entry already gone for done (an undo that needs it there fails).
    store = lone_store()
    before = outline(store)
    store._tags = Interrupting(store._tags, "update")
    setattr(store, where, Interrupting(getattr(store, where), "pop", skip=1))
    with pytest.raises(KeyboardInterrupt):
        store.merge_named_data_store(crafted())
    assert getattr(store, where).times == 0  # the undo was interrupted where meant
    assert outline(store) == before
    store._tags = dict(store._tags)
    store.merge_named_data_store(crafted())
    assert len(store.get_named_data_store_output().buffers) == 2 + 4 and orphans(store) == set()


class Broken(dict[Any, Any]):
    """A dict whose ``pop`` fails, as an undo with a bug in it would."""

    def pop(self, *args: Any) -> Any:
        raise RuntimeError("the undo failed")


def test_an_undo_that_fails_raises_its_error_rather_than_run_for_ever() -> None:
    store = lone_store()
    store._tags = Interrupting(store._tags, "update")
    store._digests = Broken(store._digests)
    with pytest.raises(RuntimeError, match="the undo failed") as raised:
        store.merge_named_data_store(crafted())
    assert isinstance(raised.value.__context__, KeyboardInterrupt)  # what the undo was undoing


def test_the_very_object_of_a_stored_buffer_is_merged_without_hashing() -> None:
    store = lone_store()
    stored = store.buffers[0]
    store.merge_named_data_store(NamedDataStoreOutput([stored], {"same": DataEntry(0, 1)}, {}))
    assert store.get_named_data_store_output().pte_data["same"].buffer_index == 0
    assert store._digests == {}


@pytest.mark.parametrize("tag", [None, "weights", "new tag"])
def test_an_add_interrupted_before_its_fingerprint_is_kept_is_undone(tag: str | None) -> None:
    # under a new tag, the undo finds no map of it yet: it was to be made in a later step
    store = store_of(2, output=False)
    before = outline(store)
    store._fps = Interrupting(store._fps, "__setitem__")
    with pytest.raises(KeyboardInterrupt):
        store.add_named_data("new", b"a new blob", 1, tag)
    assert outline(store) == before


def test_an_empty_tag_map_is_left_out_of_an_output() -> None:
    store = store_of(2, output=False)
    store.external_data["empty"] = {}
    assert "empty" not in store.get_named_data_store_output().external_data


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("buffers", None, "buffers"),
        ("pte_data", None, "pte_data"),
        ("external_data", None, "external_data"),
        ("pte_data", {"bad": (0, 1, None)}, "'bad'"),
    ],
)
def test_a_wrongly_typed_output_is_named(field: str, value: object, named: str) -> None:
    other = NamedDataStoreOutput([b"zero"], {}, {})
    setattr(other, field, value)
    with pytest.raises(TypeError, match=named):
        NamedDataStore().merge_named_data_store(other)


@pytest.mark.parametrize("how", ["set", "delete"])
def test_a_write_to_an_unread_snapshot_reads_it_first(how: str) -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"a", 1, "t")
    out = store.get_named_data_store_output()
    store.add_named_data("later", b"later")
    if how == "set":
        out.buffers = [b"mine"]
        assert out.buffers == [b"mine"]
    else:
        del out.buffers
        with pytest.raises(AttributeError, match="buffers"):
            out.buffers  # noqa: B018
    assert out.pte_data == {} and list(out.external_data) == ["t"]  # the snapshot's, not later
    target = NamedDataStore()
    if how == "set":  # merged as it now holds: its own buffers, not the store's
        target.merge_named_data_store(out)
        assert target.get_named_data_store_output().buffers == [b"mine"]


def test_a_snapshot_is_an_output_as_a_hand_made_one_is() -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"a", 2, "t")
    out = store.get_named_data_store_output()
    same = NamedDataStoreOutput([b"a"], {}, {"t": {"a": DataEntry(0, 2)}})
    assert out == same and same == out and out != "an output"
    assert repr(out) == repr(same) and isinstance(out, NamedDataStoreOutput)
