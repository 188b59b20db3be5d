"""NamedDataStore: argument checks, re-adds, dedup, snapshots, merge and externalize."""

from __future__ import annotations

import copy
import hashlib
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import reference.named_data as named_data
from conformance.harness.helpers import PREFIX
from reference import DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput
from tests.reference.stores import store_with

TAIL_X = PREFIX + b"X" * 100
TAIL_Y = PREFIX + b"Y" * 100
TAIL_Z = PREFIX + b"Z" * 100


def fresh(data: bytes) -> bytes:
    """An equal bytes object with its own identity."""
    return bytes(bytearray(data))


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every object ``reference.named_data`` hands to ``hashlib.sha256``, in order."""
    calls: list[bytes] = []
    real = hashlib.sha256

    def spy(data: bytes = b"", **kwargs: object) -> object:
        calls.append(data)
        return real(data, **kwargs)  # type: ignore[arg-type]  # the wrong type is the point

    monkeypatch.setattr(named_data, "hashlib", SimpleNamespace(sha256=spy))
    return calls


def shard_tag(prefix: str, keys: list[str]) -> str:
    return f"{prefix}_{hashlib.sha256(chr(0).join(sorted(keys)).encode()).hexdigest()}"


# --------------------------------------------------------------------------------------------
# add_named_data: arguments


def test_add_places_entries_inline_or_under_their_tag() -> None:
    store = NamedDataStore()
    store.add_named_data("inline", b"one")
    store.add_named_data("ext", b"two", 16, "model")
    store.add_named_data("layout", b"three", 8, None, ("f32", [1]))
    assert store.buffers == [b"one", b"two", b"three"]
    assert store.pte_data == {
        "inline": DataEntry(0, 1, None),
        "layout": DataEntry(2, 8, ("f32", [1])),
    }
    assert store.external_data == {"model": {"ext": DataEntry(1, 16, None)}}


@pytest.mark.parametrize("key", [1, b"key", None, ("k",)])
def test_key_must_be_str(key: object) -> None:
    store = NamedDataStore()
    with pytest.raises(TypeError, match="key must be str"):
        store.add_named_data(key, b"data")  # type: ignore[arg-type]  # the wrong type is the point
    assert store.buffers == [] and store.pte_data == {}


@pytest.mark.parametrize("data", ["text", bytearray(b"x"), memoryview(b"x"), [1, 2], 7, None])
def test_unsupported_data_type(data: object) -> None:
    store = NamedDataStore()
    with pytest.raises(TypeError, match=f"^Unsupported named data type: {type(data).__name__}$"):
        store.add_named_data("key", data)  # type: ignore[arg-type]  # the wrong type is the point
    assert store.buffers == []


def test_alignment_none_means_one() -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", None)
    assert store.pte_data["key"] == DataEntry(0, 1, None)


@pytest.mark.parametrize("alignment", [True, False, 1.0, 16.0, "16"])
def test_alignment_must_be_int(alignment: object) -> None:
    store = NamedDataStore()
    with pytest.raises(TypeError, match="alignment must be int"):
        store.add_named_data("key", b"data", alignment)  # type: ignore[arg-type]  # the wrong type is the point
    assert store.pte_data == {}


@pytest.mark.parametrize("alignment", [0, -1, -4096])
def test_alignment_must_be_positive(alignment: int) -> None:
    store = NamedDataStore()
    message = f"Alignment must be greater than 0, received {alignment}."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        store.add_named_data("key", b"data", alignment)
    assert store.pte_data == {}


@pytest.mark.parametrize("alignment", [3, 6, 12, 1000, 4097])
def test_non_power_of_two_alignment_is_accepted(alignment: int) -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", alignment, "tag")
    assert store.external_data["tag"]["key"].alignment == alignment


@pytest.mark.parametrize(("tag", "error"), [(1, TypeError), (b"tag", TypeError), ("", ValueError)])
def test_external_tag_must_be_nonempty_str_or_none(tag: object, error: type) -> None:
    store = NamedDataStore()
    with pytest.raises(error, match="external_tag"):
        store.add_named_data("key", b"data", 1, tag)  # type: ignore[arg-type]  # the wrong type is the point
    assert store.external_data == {} and store.buffers == []


# --------------------------------------------------------------------------------------------
# add_named_data: a key added again


def test_readd_equal_contents_changes_nothing(make_file, store_state) -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", 4, "tag", "layout")
    before = store_state(store)
    with FileBackedData(make_file("same.bin", b"data")) as blob:
        store.add_named_data("key", fresh(b"data"), 4, "tag", "layout")
        store.add_named_data("key", blob, 4, "tag", "layout")
        assert store_state(store) == before


def test_readd_file_backed_key_with_equal_bytes(make_file, store_state) -> None:
    with FileBackedData(make_file("a.bin", b"contents")) as blob:
        store = NamedDataStore()
        store.add_named_data("key", blob)
        before = store_state(store)
        store.add_named_data("key", b"contents")
        assert store_state(store) == before
        assert store.buffers[0] is blob


@pytest.mark.parametrize("new", [b"data1", b"date", b"", b"a much longer payload"])
def test_readd_different_contents_is_a_duplicate_key_error(new: bytes, store_state) -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data")
    before = store_state(store)
    message = (
        f"Duplicate key key with different data. Existing data size: 4 bytes. "
        f"New data size: {len(new)} bytes."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        store.add_named_data("key", new)
    with pytest.raises(ValueError, match=re.escape(message)):
        store.add_named_data("key", new, 16, "file1")
    assert store_state(store) == before


@pytest.mark.parametrize(
    ("first", "second", "names"),
    [
        (None, "model", ["inline in the PTE", "'model'"]),
        ("model", None, ["'model'", "inline in the PTE"]),
        ("model", "other", ["'model'", "'other'"]),
    ],
)
def test_readd_under_another_tag_is_refused(first, second, names, store_state) -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", 1, first)
    before = store_state(store)
    with pytest.raises(ValueError, match="key") as caught:
        store.add_named_data("key", b"data", 1, second)
    for name in names:
        assert name in str(caught.value)
    assert store_state(store) == before
    assert set(store.external_data) == ({first} - {None})  # no empty map for the refused tag


def test_readd_with_another_tensor_layout_is_refused(store_state) -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", 1, None, ("f32", [2, 1]))
    before = store_state(store)
    with pytest.raises(ValueError, match="tensor layout"):
        store.add_named_data("key", b"data", 1, None, ("f32", [1, 2]))
    with pytest.raises(ValueError, match="tensor layout"):
        store.add_named_data("key", b"data", 1, None, None)
    assert store_state(store) == before


@pytest.mark.parametrize("tag", [None, "model"])
def test_readd_with_another_alignment_takes_the_lcm(tag) -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", 4, tag)
    store.add_named_data("other", b"data", 8, tag)
    store.add_named_data("key", b"data", 6, tag)
    current = store.pte_data if tag is None else store.external_data[tag]
    assert current["key"] == DataEntry(0, 12, None)
    store.add_named_data("key", b"data", 3, tag)  # lcm(12, 3) == 12: no change
    assert current["key"] == DataEntry(0, 12, None)
    assert current["other"] == DataEntry(0, 8, None)  # another key sharing the buffer keeps its own
    assert len(store.buffers) == 1


def test_readd_with_alignment_does_not_change_earlier_output() -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", 4)
    earlier = store.get_named_data_store_output()
    store.add_named_data("key", b"data", 16)
    assert earlier.pte_data["key"].alignment == 4
    assert store.get_named_data_store_output().pte_data["key"].alignment == 16


def _closed_blob(make_file) -> FileBackedData:
    blob = FileBackedData(make_file("closed.bin", b"closed blob"))
    blob.close()
    return blob


def _resized_blob(make_file) -> FileBackedData:
    path = make_file("resized.bin", b"resized blob")
    blob = FileBackedData(path)
    path.write_bytes(b"now longer than it was")
    return blob


FAILING_ADDS = {
    "bad key": lambda mf: ((1, b"x"), TypeError),
    "bad data": lambda mf: (("new", bytearray(b"x"), 1, "new_tag"), TypeError),
    "bad alignment": lambda mf: (("new", b"x", 0, "new_tag"), ValueError),
    "bad tag": lambda mf: (("new", b"x", 1, ""), ValueError),
    "duplicate key": lambda mf: (("inline", b"other", 1, None), ValueError),
    "key under new tag": lambda mf: (("inline", b"inline", 1, "new_tag"), ValueError),
    "layout": lambda mf: (("inline", b"inline", 1, None, "layout"), ValueError),
    "closed file": lambda mf: (("new", _closed_blob(mf), 1, "new_tag"), ValueError),
    "resized file": lambda mf: (("new", _resized_blob(mf), 1, "new_tag"), OSError),
}


@pytest.mark.parametrize("case", FAILING_ADDS)
def test_failed_add_changes_nothing(make_file, store_state, case: str) -> None:
    store = NamedDataStore()
    store.add_named_data("inline", b"inline")
    store.add_named_data("ext", b"resized blob", 8, "model")  # same fingerprint as the resized blob
    before = store_state(store)
    args, error = FAILING_ADDS[case](make_file)
    try:
        with pytest.raises(error):
            store.add_named_data(*args)
    finally:
        for arg in args:
            if isinstance(arg, FileBackedData):
                arg.close()
    assert store_state(store) == before
    assert "new_tag" not in store.external_data
    store.add_named_data("new", b"fine", 1, "new_tag")  # the refused key is still free
    assert store.external_data["new_tag"] == {"new": DataEntry(2, 1, None)}


# --------------------------------------------------------------------------------------------
# Dedup


def test_equal_contents_share_one_buffer_whatever_the_representation(make_file) -> None:
    data = os.urandom(100)
    first = fresh(data)
    with (
        FileBackedData(make_file("borrowed.bin", data)) as borrowed,
        FileBackedData.move_from(make_file("owned.bin", data)) as owned,
        FileBackedData(make_file("other.bin", data)) as other_file,
    ):
        store = NamedDataStore()
        store.add_named_data("bytes", first)
        store.add_named_data("borrowed", borrowed, 4, "a")
        store.add_named_data("owned", owned, 8, "b")
        store.add_named_data("other_file", other_file)
        store.add_named_data("bytes_again", fresh(data), 16, "a")
        assert len(store.buffers) == 1
        assert store.buffers[0] is first
        indices = [store.pte_data[k].buffer_index for k in ("bytes", "other_file")] + [
            store.external_data[t][k].buffer_index
            for t, k in (("a", "borrowed"), ("b", "owned"), ("a", "bytes_again"))
        ]
        assert indices == [0] * 5


def test_first_added_file_backed_object_is_kept(make_file) -> None:
    data = os.urandom(64)
    with (
        FileBackedData(make_file("one.bin", data)) as one,
        FileBackedData(make_file("two.bin", data)) as two,
    ):
        store = NamedDataStore()
        store.add_named_data("one", one)
        store.add_named_data("two", two)
        store.add_named_data("three", fresh(data))
        assert len(store.buffers) == 1 and store.buffers[0] is one


def test_fingerprint_collision_keeps_two_buffers_then_dedups_a_true_duplicate() -> None:
    store = NamedDataStore()
    store.add_named_data("x", TAIL_X)
    store.add_named_data("y", TAIL_Y)
    assert store.buffers == [TAIL_X, TAIL_Y]
    store.add_named_data("x_again", fresh(TAIL_X))
    store.add_named_data("y_again", fresh(TAIL_Y), 1, "tag")
    assert len(store.buffers) == 2
    assert store.pte_data["x_again"].buffer_index == 0
    assert store.external_data["tag"]["y_again"].buffer_index == 1
    assert store.buffers[0] is TAIL_X


def test_fingerprint_collision_between_file_and_bytes(make_file) -> None:
    with (
        FileBackedData(make_file("x.bin", TAIL_X)) as x_file,
        FileBackedData(make_file("y.bin", TAIL_Y)) as y_file,
    ):
        store = store_with(("x", x_file), ("y", TAIL_Y), ("y_file", y_file), ("x_bytes", TAIL_X))
        assert store.buffers == [x_file, TAIL_Y]
        assert [e.buffer_index for e in store.pte_data.values()] == [0, 1, 1, 0]


def test_empty_blobs_share_one_buffer(make_file) -> None:
    with FileBackedData(make_file("empty.bin", b"")) as empty_file:
        store = NamedDataStore()
        store.add_named_data("empty_bytes", b"")
        store.add_named_data("empty_file", empty_file, 1, "tag")
        store.add_named_data("empty_again", b"")
        assert store.buffers == [b""]
        assert store.external_data["tag"]["empty_file"].buffer_index == 0


def test_distinct_fingerprints_are_never_hashed(make_file, hashed, read_spy) -> None:
    big = os.urandom(1000)
    with FileBackedData(make_file("big.bin", big)) as blob:
        store = NamedDataStore()
        store.add_named_data("a", b"short")
        store.add_named_data("b", TAIL_X)
        store.add_named_data("file", blob)
        store.add_named_data("c", TAIL_X[:-1])  # same prefix, another length
        assert hashed == []
        assert read_spy.bytes_read == 32  # the file backed blob: its first 32 bytes only
        assert len(store.buffers) == 4


def test_no_blob_is_hashed_twice(hashed) -> None:
    x, y, z, x_again = fresh(TAIL_X), fresh(TAIL_Y), fresh(TAIL_Z), fresh(TAIL_X)
    store = NamedDataStore()
    store.add_named_data("x", x)
    assert hashed == []
    store.add_named_data("y", y)  # collides with x: hashes y and x
    store.add_named_data("z", z)  # collides with both: only z is new to hash
    store.add_named_data("x_again", x_again)
    assert sorted(map(id, hashed)) == sorted(map(id, [x, y, z, x_again]))
    assert len(store.buffers) == 3
    hashed.clear()
    store.add_named_data("y", fresh(TAIL_Y))  # a re-add compares against the cached digest
    assert len(hashed) == 1


def test_file_backed_blob_is_hashed_once_by_the_store(make_file, read_spy) -> None:
    with (
        FileBackedData(make_file("x.bin", TAIL_X)) as x_file,
        FileBackedData(make_file("y.bin", TAIL_Y)) as y_file,
    ):
        adds = [("x", x_file), ("y", y_file), ("z", TAIL_Z), ("x_bytes", TAIL_X), ("x", x_file)]
        store = store_with(*adds)
        # each file was opened once for its prefix and once to hash it, never more
        assert sorted(read_spy.opened) == sorted([x_file.path, y_file.path] * 2)
        assert [e.buffer_index for e in store.pte_data.values()] == [0, 1, 2, 0]


# --------------------------------------------------------------------------------------------
# get_named_data_store_output


def test_output_is_a_snapshot(make_file) -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"aaaa", 4)
    store.add_named_data("e", b"eeee", 4, "model")
    output = store.get_named_data_store_output()
    frozen = copy.deepcopy(output)
    assert isinstance(output, NamedDataStoreOutput)
    assert all(o is s for o, s in zip(output.buffers, store.buffers, strict=True))

    store.add_named_data("b", b"bbbb")
    store.add_named_data("f", b"ffff", 1, "model")
    store.add_named_data("a", b"aaaa", 64)
    other = NamedDataStore()
    other.add_named_data("m", b"merged", 1, "other")
    store.merge_named_data_store(other.get_named_data_store_output())
    store.externalize_pte_data(100, "shard")

    assert output == frozen
    assert output.pte_data == {"a": DataEntry(0, 4, None)}
    assert output.external_data == {"model": {"e": DataEntry(1, 4, None)}}
    assert len(output.buffers) == 2


def test_output_holds_the_store_buffers_by_identity(make_file) -> None:
    with FileBackedData(make_file("a.bin", b"file data")) as blob:
        store = NamedDataStore()
        store.add_named_data("f", blob, 1, "t")
        store.add_named_data("b", b"bytes")
        output = store.get_named_data_store_output()
        assert output.buffers[0] is blob and output.buffers[1] is store.buffers[1]
        assert output.buffers is not store.buffers
        assert output.pte_data is not store.pte_data
        assert output.external_data["t"] is not store.external_data["t"]


# --------------------------------------------------------------------------------------------
# merge_named_data_store


def _source_store() -> NamedDataStore:
    return store_with(
        ("p1", b"first inline", 4, None, "layout"),
        ("p2", b"second inline", 8),
        ("t1", b"tagged", 16, "file1"),
        ("t2", b"first inline", 2, "file2"),
        ("t3", b"more", 1, "file2"),
    )


def test_merge_into_empty_store_reproduces_the_output() -> None:
    output = _source_store().get_named_data_store_output()
    target = NamedDataStore()
    target.merge_named_data_store(output)
    merged = target.get_named_data_store_output()
    assert merged == output
    assert all(m is o for m, o in zip(merged.buffers, output.buffers, strict=True))
    assert list(merged.pte_data) == ["p1", "p2"]
    assert list(merged.external_data) == ["file1", "file2"]
    assert list(merged.external_data["file2"]) == ["t2", "t3"]


def test_merge_replays_inline_entries_before_tagged_ones() -> None:
    other = NamedDataStore()
    other.add_named_data("ext", b"shared", 1, "tag")
    other.add_named_data("inline", b"shared")
    target = NamedDataStore()
    target.merge_named_data_store(other.get_named_data_store_output())
    # The inline entry is replayed first, so its buffer comes first in the target.
    assert target.pte_data["inline"].buffer_index == 0
    assert target.external_data["tag"]["ext"].buffer_index == 0
    assert len(target.buffers) == 1


def test_merge_dedups_against_the_target() -> None:
    target = NamedDataStore()
    target.add_named_data("mine", b"first inline")
    target.add_named_data("p1", b"first inline", 2, None, "layout")
    target.merge_named_data_store(_source_store().get_named_data_store_output())
    assert target.buffers == [b"first inline", b"second inline", b"tagged", b"more"]
    assert target.pte_data["p1"] == DataEntry(0, 4, "layout")  # lcm(2, 4)
    assert target.external_data["file2"]["t2"] == DataEntry(0, 2, None)


def test_merge_never_mutates_other_nor_closes_its_files(make_file, tmp_path) -> None:
    data_a, data_b = os.urandom(200), os.urandom(300)
    with (
        FileBackedData.move_from(make_file("a.bin", data_a)) as file_a,
        FileBackedData.move_from(make_file("b.bin", data_b)) as file_b,
        FileBackedData.move_from(make_file("a2.bin", data_a)) as target_a,
    ):
        source = NamedDataStore()
        source.add_named_data("a", file_a, 64, "model")
        source.add_named_data("b", file_b)
        source.add_named_data("b_bytes", data_b, 16)
        output = source.get_named_data_store_output()
        lists = (
            list(output.buffers),
            copy.deepcopy(output.pte_data),
            copy.deepcopy(output.external_data),
        )
        identities = [id(b) for b in output.buffers]
        dict_ids = (
            id(output.buffers),
            id(output.pte_data),
            id(output.external_data),
            id(output.external_data["model"]),
        )
        files = {p: Path(p).read_bytes() for p in (file_a.path, file_b.path)}

        target = NamedDataStore()
        target.add_named_data("a", target_a, 64, "model")
        target.merge_named_data_store(output)
        target.merge_named_data_store(output)

        assert (output.buffers, output.pte_data, output.external_data) == lists
        assert [id(b) for b in output.buffers] == identities
        assert (
            id(output.buffers),
            id(output.pte_data),
            id(output.external_data),
            id(output.external_data["model"]),
        ) == dict_ids
        for path, contents in files.items():
            assert Path(path).read_bytes() == contents
        assert not file_a.closed and not file_b.closed
        assert target.buffers[0] is target_a and target.buffers[1] is file_b
        assert len(target.buffers) == 2
        assert sorted(os.listdir(tmp_path)) == sorted(
            os.path.basename(p) for p in (file_a.path, file_b.path, target_a.path)
        )


def test_same_output_merges_into_two_stores_and_twice_into_one(make_file, store_state) -> None:
    with FileBackedData.move_from(make_file("a.bin", b"file-backed data")) as blob:
        source = NamedDataStore()
        source.add_named_data("key", blob, 1, "model")
        source.add_named_data("inline", b"inline")
        output = source.get_named_data_store_output()
        first, second = NamedDataStore(), NamedDataStore()
        first.merge_named_data_store(output)
        after_once = store_state(first)
        first.merge_named_data_store(output)
        assert store_state(first) == after_once
        second.merge_named_data_store(output)
        assert first.get_named_data_store_output() == second.get_named_data_store_output()
        # inline entries are replayed first, so the file-backed buffer comes second
        assert first.buffers == [b"inline", blob] and first.buffers[1] is second.buffers[1] is blob
        assert first.external_data == {"model": {"key": DataEntry(1, 1, None)}}
        assert not blob.closed and os.path.exists(blob.path)


def test_merge_conflict_at_the_last_key_leaves_target_unchanged(store_state) -> None:
    target = NamedDataStore()
    target.add_named_data("t3", b"not the same")
    target.add_named_data("mine", b"mine", 1, "file2")
    before = store_state(target)
    with pytest.raises(ValueError, match="Duplicate key t3"):
        target.merge_named_data_store(_source_store().get_named_data_store_output())
    assert store_state(target) == before
    assert "file1" not in target.external_data
    target.add_named_data("p1", b"anything")  # keys before the conflict were not added
    assert target.pte_data["p1"].buffer_index == 2


def _output(**overrides) -> NamedDataStoreOutput:
    output = NamedDataStoreOutput(
        [b"zero", b"one"],
        {"inline": DataEntry(0, 1, None)},
        {"tag": {"ext": DataEntry(1, 1, None)}},
    )
    for name, value in overrides.items():
        setattr(output, name, value)
    return output


@pytest.mark.parametrize(
    ("output", "key"),
    [
        (_output(external_data={"tag": {"inline": DataEntry(1, 1, None)}}), "inline"),
        (
            _output(
                external_data={
                    "a": {"ext": DataEntry(1, 1, None)},
                    "b": {"ext": DataEntry(1, 1, None)},
                }
            ),
            "ext",
        ),
        (_output(pte_data={"inline": DataEntry(2, 1, None)}), "inline"),
        (_output(pte_data={"inline": DataEntry(-1, 1, None)}), "inline"),
        (_output(external_data={"tag": {"ext": DataEntry("0", 1, None)}}), "ext"),  # type: ignore[arg-type]  # the wrong type is the point
        (_output(external_data={"tag": {"ext": DataEntry(0.0, 1, None)}}), "ext"),  # type: ignore[arg-type]  # the wrong type is the point
        (_output(external_data={"tag": {"ext": DataEntry(True, 1, None)}}), "ext"),
    ],
    ids=[
        "pte-and-external",
        "two-tags",
        "index-too-big",
        "index-negative",
        "index-str",
        "index-float",
        "index-bool",
    ],
)
def test_malformed_output_is_refused(output, key: str, store_state) -> None:
    target = NamedDataStore()
    target.add_named_data("mine", b"mine")
    before = store_state(target)
    with pytest.raises(ValueError, match=repr(key)):
        target.merge_named_data_store(output)
    assert store_state(target) == before


def test_merge_with_invalid_entry_alignment_is_refused(store_state) -> None:
    target = NamedDataStore()
    before = store_state(target)
    with pytest.raises(ValueError, match="Alignment must be greater than 0"):
        target.merge_named_data_store(_output(pte_data={"inline": DataEntry(0, 0, None)}))
    assert store_state(target) == before


def test_merge_accepts_a_duck_typed_output() -> None:
    blob = b"duck data"
    duck = SimpleNamespace(
        buffers=[blob],
        pte_data={"a": DataEntry(0, 8, None)},
        external_data={"x": {"b": DataEntry(0, 4, "layout")}},
    )
    target = NamedDataStore()
    target.merge_named_data_store(duck)  # type: ignore[arg-type]  # the wrong type is the point
    assert target.buffers == [blob] and target.buffers[0] is blob
    assert target.pte_data == {"a": DataEntry(0, 8, None)}
    assert target.external_data == {"x": {"b": DataEntry(0, 4, "layout")}}


# --------------------------------------------------------------------------------------------
# externalize_pte_data


@pytest.mark.parametrize("cap", [True, False, 0, -1, 1.5, "10", None])
def test_externalize_rejects_bad_caps(cap: object) -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"a")
    with pytest.raises(ValueError, match="positive integer"):
        store.externalize_pte_data(cap, "prefix")  # type: ignore[arg-type]  # the wrong type is the point
    assert "a" in store.pte_data


@pytest.mark.parametrize("prefix", ["", None, 5, b"prefix"])
def test_externalize_rejects_bad_prefixes(prefix: object) -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"a")
    with pytest.raises(ValueError, match="prefix must be nonempty"):
        store.externalize_pte_data(10, prefix)  # type: ignore[arg-type]  # the wrong type is the point
    assert "a" in store.pte_data


def _packing_store(order: list[str]) -> NamedDataStore:
    data = {
        "key_a": (b"a" * 6, 16),
        "key_a_alias": (b"a" * 6, 32),
        "key_b": (b"b" * 4, 32),
        "key_c": (b"c" * 5, 64),
    }
    store = NamedDataStore()
    for key in order:
        store.add_named_data(key, *data[key])
    return store


def test_externalize_packs_sorted_key_groups_counting_aliases_once() -> None:
    store = _packing_store(["key_c", "key_b", "key_a_alias", "key_a"])
    buffers = list(store.buffers)
    entries = dict(store.pte_data)
    store.externalize_pte_data(10, "consts")
    first = shard_tag("consts", ["key_a", "key_a_alias", "key_b"])
    second = shard_tag("consts", ["key_c"])
    assert store.pte_data == {}
    assert list(store.external_data) == [first, second]
    assert list(store.external_data[first]) == ["key_a", "key_a_alias", "key_b"]
    assert store.external_data[first] == {k: entries[k] for k in ("key_a", "key_a_alias", "key_b")}
    assert store.external_data[second] == {"key_c": entries["key_c"]}
    assert store.buffers == buffers


def test_externalize_is_insertion_order_independent() -> None:
    forward = _packing_store(["key_a", "key_a_alias", "key_b", "key_c"])
    backward = _packing_store(["key_c", "key_b", "key_a_alias", "key_a"])
    for store in (forward, backward):
        store.externalize_pte_data(10, "consts")

    def resolved(store: NamedDataStore) -> dict:
        return {
            tag: {k: (store.buffers[e.buffer_index], e.alignment) for k, e in entries.items()}
            for tag, entries in store.external_data.items()
        }

    assert resolved(forward) == resolved(backward)
    assert len(resolved(forward)) == 2


def test_externalize_cap_equal_to_a_buffer_fits() -> None:
    store = NamedDataStore()
    store.add_named_data("a", b"x" * 10)
    store.add_named_data("b", b"y" * 10)
    store.externalize_pte_data(10, "p")
    assert list(store.external_data) == [shard_tag("p", ["a"]), shard_tag("p", ["b"])]


def test_externalize_oversized_buffer_is_refused_atomically(store_state) -> None:
    store = NamedDataStore()
    store.add_named_data("external", b"ext", 8, "existing")
    store.add_named_data("key_a", b"aaaa", 16)
    store.add_named_data("key_z", b"z" * 11, 32)
    before = store_state(store)
    with pytest.raises(ValueError, match="exceeds external data shard cap 10"):
        store.externalize_pte_data(10, "consts")
    assert store_state(store) == before


def test_externalize_tag_collision_is_refused_atomically(store_state) -> None:
    store = NamedDataStore()
    tag = shard_tag("consts", ["inline"])
    store.add_named_data("external", b"ext", 8, tag)
    store.add_named_data("inline", b"inline", 16)
    before = store_state(store)
    with pytest.raises(ValueError, match=f"external data tag collision for {tag}"):
        store.externalize_pte_data(10, "consts")
    assert store_state(store) == before


def test_externalize_preserves_external_data_and_is_idempotent(store_state) -> None:
    store = NamedDataStore()
    store.add_named_data("external", b"ext", 8, "existing")
    store.add_named_data("inline", b"inline", 16)
    store.externalize_pte_data(10, "consts")
    once = store_state(store)
    store.externalize_pte_data(10, "consts")
    assert store_state(store) == once
    assert store.external_data == {
        "existing": {"external": DataEntry(0, 8, None)},
        shard_tag("consts", ["inline"]): {"inline": DataEntry(1, 16, None)},
    }


def test_externalize_twice_adds_a_shard_for_new_inline_data() -> None:
    store = NamedDataStore()
    store.add_named_data("inline", b"inline")
    store.externalize_pte_data(10, "consts")
    store.add_named_data("later", b"later")
    store.externalize_pte_data(10, "consts")
    assert store.external_data == {
        shard_tag("consts", ["inline"]): {"inline": DataEntry(0, 1, None)},
        shard_tag("consts", ["later"]): {"later": DataEntry(1, 1, None)},
    }


def test_moved_keys_are_found_under_their_new_tag(store_state) -> None:
    store = NamedDataStore()
    store.add_named_data("inline", b"inline", 4)
    store.externalize_pte_data(10, "consts")
    tag = shard_tag("consts", ["inline"])
    before = store_state(store)
    store.add_named_data("inline", b"inline", 4, tag)
    assert store_state(store) == before
    with pytest.raises(ValueError, match=re.escape(repr(tag))):
        store.add_named_data("inline", b"inline", 4)
    with pytest.raises(ValueError, match="Duplicate key inline with different data"):
        store.add_named_data("inline", b"changed", 4, tag)
    store.add_named_data("inline", b"inline", 8, tag)
    assert store.external_data[tag]["inline"].alignment == 8
    assert store.pte_data == {}


def test_externalize_empty_store_does_nothing() -> None:
    store = NamedDataStore()
    store.externalize_pte_data(1, "p")
    assert (store.buffers, store.pte_data, store.external_data) == ([], {}, {})


def test_module_constant() -> None:
    assert named_data.FINGERPRINT_PREFIX == 32


@pytest.mark.parametrize("alignment", [1, 2])
def test_a_closed_blob_readded_under_its_own_key_is_refused(make_file, alignment: int) -> None:
    """FBD-CLOSED-1: the key already names this very object; it is refused all the same."""
    path = make_file("a.bin", b"weights")
    blob = FileBackedData(path)
    store = NamedDataStore()
    store.add_named_data("k", blob)
    output = store.get_named_data_store_output()
    blob.close()
    with pytest.raises(ValueError, match=re.escape(repr(str(path)))):
        store.add_named_data("k", blob, alignment)
    with pytest.raises(ValueError, match="closed FileBackedData"):
        store.merge_named_data_store(output)
    assert store.pte_data == {"k": DataEntry(0, 1, None)}


# --- keys UTF-8 cannot encode (NDS-KEY-7), keys holding NUL (NDS-EXT-9), shown values -----------


@pytest.mark.parametrize("text", ["\udcff", "ascii then \ud800", "\u00e9\udc80"])
@pytest.mark.parametrize("where", ["key", "tag"])
def test_a_lone_surrogate_is_refused_at_add(text: str, where: str) -> None:
    store = NamedDataStore()
    key, tag = (text, None) if where == "key" else ("k", text)
    with pytest.raises(ValueError, match="lone surrogate at index") as raised:
        store.add_named_data(key, b"data", 1, tag)
    assert repr(text) in str(raised.value)
    assert store.get_named_data_store_output() == NamedDataStoreOutput([], {}, {})


@pytest.mark.parametrize("where", ["key", "tag"])
def test_a_lone_surrogate_is_refused_by_a_merge_fast_path_too(where: str) -> None:
    store = NamedDataStore()
    store.add_named_data("kept", b"kept")
    entry = DataEntry(0, 1, None)
    other = (
        NamedDataStoreOutput([b"data"], {"\udcff": entry}, {})
        if where == "key"
        else NamedDataStoreOutput([b"data"], {}, {"\udcff": {"k": entry}})
    )
    with pytest.raises(ValueError, match="'\\\\udcff'"):
        store.merge_named_data_store(other)
    assert list(store.key_to_buffer_idx) == ["kept"]


def test_a_non_ascii_key_takes_the_checked_path_and_is_stored() -> None:
    store = NamedDataStore()
    store.add_named_data("\u043a\u043b\u044e\u0447", b"data", 1, "\u00e9")
    assert store.get_named_data_store_output().external_data == {
        "\u00e9": {"\u043a\u043b\u044e\u0447": DataEntry(0, 1, None)}
    }


def test_a_tag_prefix_with_a_lone_surrogate_is_refused() -> None:
    store = NamedDataStore()
    store.add_named_data("k", b"data")
    with pytest.raises(ValueError, match="external data tag prefix"):
        store.externalize_pte_data(100, "p\udcff")
    assert store.get_named_data_store_output().pte_data == {"k": DataEntry(0, 1, None)}


def test_shard_tags_of_keys_holding_nul_differ() -> None:
    store = NamedDataStore()
    store.add_named_data("a\0b", b"one")
    store.externalize_pte_data(100, "c")
    store.add_named_data("a", b"two")
    store.add_named_data("b", b"three")
    store.externalize_pte_data(100, "c")
    tags = list(store.get_named_data_store_output().external_data)
    escaped, joined = b"a\xffb", b"a\0b"  # the second as ExecuTorch's, for keys without NUL
    assert tags == [
        f"c_{hashlib.sha256(escaped).hexdigest()}",
        f"c_{hashlib.sha256(joined).hexdigest()}",
    ]


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("repr called")

    __str__ = __format__ = __repr__  # type: ignore[assignment]


@pytest.mark.parametrize("argument", ["key", "alignment", "tag"])
def test_a_bad_value_is_named_without_its_repr(argument: str) -> None:
    arguments: dict[str, object] = {"key": "k", "alignment": 1, "tag": None}
    arguments[argument] = _Unprintable()
    with pytest.raises(TypeError, match="_Unprintable"):
        NamedDataStore().add_named_data(
            arguments["key"],  # type: ignore[arg-type]
            b"data",
            arguments["alignment"],  # type: ignore[arg-type]
            arguments["tag"],  # type: ignore[arg-type]
        )


def test_an_alignment_past_the_digit_limit_gets_the_add_3_message() -> None:
    with pytest.raises(ValueError) as raised:
        NamedDataStore().add_named_data("k", b"data", -(10**5000))
    assert str(raised.value) == "Alignment must be greater than 0, received -<int of 16610 bits>."
