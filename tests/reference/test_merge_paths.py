"""The reference's merge and its short ways: an unread snapshot replayed from the store's own
containers, and new ``bytes`` blobs staged without the general path. Each must give what the
general path gives, on the inputs where a wrong short way would part from it; the route tests say
that the short way is taken (nothing else tells it from the long one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reference import DataEntry, NamedDataStore, NamedDataStoreOutput, named_data
from tests.reference.stores import store_with

pytestmark = pytest.mark.mutation  # the mutation run includes every test here


def entries(store: NamedDataStore) -> tuple[object, ...]:
    out = store.get_named_data_store_output()
    return (
        list(out.buffers),
        {k: (type(e), e.buffer_index, e.alignment) for k, e in out.pte_data.items()},
        {
            tag: {k: (type(e), e.buffer_index, e.alignment) for k, e in m.items()}
            for tag, m in out.external_data.items()
        },
    )


def source() -> NamedDataStore:
    return store_with(("inline", b"one"), ("ext", b"two", 4, "model"))


def test_an_unread_snapshot_is_merged_without_being_copied() -> None:
    out = source().get_named_data_store_output()
    target = NamedDataStore()
    target.merge_named_data_store(out)
    assert set(out.__dict__) == {"_view"}  # read from the store's containers, not copied
    assert entries(target) == entries(source())


@dataclass(frozen=True, slots=True)
class SlotsOutput:
    """An output of another type, without a ``__dict__``."""

    buffers: list[bytes]
    pte_data: dict[str, DataEntry]
    external_data: dict[str, dict[str, DataEntry]]


def test_an_output_of_another_type_without_a_dict_is_merged() -> None:
    target = NamedDataStore()
    target.merge_named_data_store(SlotsOutput([b"one"], {"inline": DataEntry(0, 1)}, {}))  # type: ignore[arg-type]  # an output of another type is taken as it is
    assert entries(target) == ([b"one"], {"inline": (DataEntry, 0, 1)}, {})


@pytest.mark.parametrize("tag", ["", 5], ids=["empty", "int"])
def test_an_empty_map_is_no_entry_to_check(tag: Any) -> None:
    # nothing under it is added, so nothing is checked, as add checks only what it adds
    target = NamedDataStore()
    target.merge_named_data_store(NamedDataStoreOutput([], {}, {tag: {}}))
    assert entries(target) == ([], {}, {})


class Index(int):
    """An int of a subclass: a valid index (only a bool is refused)."""


def test_an_index_of_an_int_subclass_is_an_index() -> None:
    target = NamedDataStore()
    target.merge_named_data_store(
        NamedDataStoreOutput([b"a", b"b"], {"k": DataEntry(Index(1), 1)}, {})
    )
    assert entries(target) == ([b"b"], {"k": (DataEntry, 0, 1)}, {})


@dataclass(frozen=True)
class Entry:
    """An entry of another type, with a DataEntry's fields."""

    buffer_index: int
    alignment: int
    tensor_layout: object = None


def test_an_entry_of_another_type_is_stored_as_a_data_entry() -> None:
    target = NamedDataStore()
    target.merge_named_data_store(NamedDataStoreOutput([b"a"], {"k": Entry(0, 2)}, {}))  # type: ignore[dict-item]  # an entry of another type
    assert entries(target) == ([b"a"], {"k": (DataEntry, 0, 2)}, {})


def test_a_re_add_that_changes_nothing_leaves_a_lent_map_as_it_is() -> None:
    store = source()
    lent = store.external_data["model"]
    store.get_named_data_store_output()
    store.add_named_data("ext", b"two", 2, "model")  # 2 divides 4: the entry stays as it was
    assert store.external_data["model"] is lent


def test_new_bytes_blobs_are_staged_the_short_way(monkeypatch: pytest.MonkeyPatch) -> None:
    target = NamedDataStore()
    target.add_named_data("stored", b"S" * 40)
    stored = target.buffers[0]
    general: list[object] = []
    real = named_data._Stage.add

    def add(stage: Any, key: str, *args: Any) -> None:
        general.append(key)
        real(stage, key, *args)

    monkeypatch.setattr(named_data._Stage, "add", add)
    other = NamedDataStoreOutput(
        [b"new", stored, bytes(bytearray(stored)), b"S" * 39 + b"x"],
        {"new": DataEntry(0, 1), "same object": DataEntry(1, 1), "equal copy": DataEntry(2, 1)},
        {"model": {"same prefix": DataEntry(3, 1)}},
    )
    target.merge_named_data_store(other)
    assert general == []
    out = target.get_named_data_store_output()
    placed = {
        k: out.pte_data[k].buffer_index for k in ("stored", "new", "same object", "equal copy")
    }
    assert placed == {"stored": 0, "new": 1, "same object": 0, "equal copy": 0}
    assert out.external_data["model"]["same prefix"].buffer_index == 2
    assert len(out.buffers) == 3


def test_an_entry_whose_index_holds_is_the_output_s_own_object() -> None:
    theirs = DataEntry(0, 4)  # frozen: sharing it costs nothing, copying it costs an object
    target = NamedDataStore()
    target.merge_named_data_store(NamedDataStoreOutput([b"a"], {"k": theirs}, {}))
    assert target.get_named_data_store_output().pte_data["k"] is theirs


class CountingMaps(dict[Any, Any]):
    """A stage's map of maps, counting the lookups of a tag's map."""

    lookups = 0

    def setdefault(self, *args: Any) -> Any:
        CountingMaps.lookups += 1
        return super().setdefault(*args)


def test_a_merge_looks_up_each_tag_s_map_once(monkeypatch: pytest.MonkeyPatch) -> None:
    real = named_data._Stage.__init__

    def init(stage: Any, store: NamedDataStore) -> None:
        real(stage, store)
        stage.maps = CountingMaps()

    monkeypatch.setattr(named_data._Stage, "__init__", init)
    CountingMaps.lookups = 0
    pte = {f"i{i}": DataEntry(i, 1) for i in range(5)}
    external = {"t": {f"t{i}": DataEntry(5 + i, 1) for i in range(5)}}
    blobs = [bytes([i]) * 40 for i in range(10)]
    NamedDataStore().merge_named_data_store(NamedDataStoreOutput(blobs, pte, external))
    assert CountingMaps.lookups == 2  # inline, then "t": entries come grouped by tag


class Intruding:
    """A tensor layout whose comparison adds to ``store`` (once): code an input runs."""

    def __init__(self, store: NamedDataStore) -> None:
        self.store = store

    def __eq__(self, other: object) -> bool:
        if "intruder" not in self.store.pte_data:
            self.store.add_named_data("intruder", b"intruder's bytes")
        return other is self or isinstance(other, Intruding)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = object.__hash__


def test_a_re_add_whose_layout_changes_the_store_raises() -> None:
    # NDS-MERGE-9: the realigned entry would be written over what the layout's code did
    store = NamedDataStore()
    layout = Intruding(NamedDataStore())
    store.add_named_data("k", b"k", 1, None, layout)
    layout.store = store
    with pytest.raises(RuntimeError, match="add_named_data"):
        store.add_named_data("k", b"k", 4, None, layout)
    assert entries(store) == (
        [b"k", b"intruder's bytes"],
        {"k": (DataEntry, 0, 1), "intruder": (DataEntry, 1, 1)},
        {},
    )


def test_a_merge_that_fails_after_its_input_changed_the_store_says_it_changed() -> None:
    # the conflict found on the way is stale: the store it was found in is gone
    target = NamedDataStore()
    target.add_named_data("k", b"k")  # without a layout: the input's one differs, a ValueError
    other = NamedDataStoreOutput([b"k"], {"k": DataEntry(0, 1, Intruding(target))}, {})
    with pytest.raises(RuntimeError, match="merge_named_data_store"):
        target.merge_named_data_store(other)
    assert "intruder" in target.get_named_data_store_output().pte_data


def test_a_key_of_another_type_in_a_merged_output_is_refused_as_add_refuses_it() -> None:
    target = NamedDataStore()
    with pytest.raises(TypeError, match="key must be str, not int: 7"):
        target.merge_named_data_store(NamedDataStoreOutput([b"a"], {7: DataEntry(0, 1)}, {}))  # type: ignore[dict-item]  # a key of another type
    assert entries(target) == ([], {}, {})


class Shrinking(dict[str, DataEntry]):
    """A map whose reading empties the output's buffers after its first entry."""

    def __init__(self, entries: dict[str, DataEntry], buffers: list[bytes]) -> None:
        super().__init__(entries)
        self.buffers = buffers

    def items(self) -> Any:
        for pair in super().items():
            yield pair
            self.buffers.clear()


def test_buffers_that_shrink_after_an_entry_are_found_at_the_next() -> None:
    # NDS-MERGE-7: the first entry was checked against the buffers as they were; the next is not
    buffers = [b"zero", b"one"]
    pte = Shrinking({"x": DataEntry(0, 1), "y": DataEntry(0, 1)}, buffers)
    target = NamedDataStore()
    with pytest.raises(ValueError, match="buffers changed while it was merged, from 2 to 0"):
        target.merge_named_data_store(NamedDataStoreOutput(buffers, pte, {}))  # type: ignore[arg-type]  # bytes are blobs
    assert entries(target) == ([], {}, {})
