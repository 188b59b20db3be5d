"""ExecuTorch's own scenarios (exir/_serialize/test/test_named_data_store.py and test_cord.py),
restated against the reference. Tensor inputs are out of scope; their "unsupported type" path is
exercised with other non-bytes objects instead.
"""

from __future__ import annotations

import copy
import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from reference import Cord, DataEntry, FileBackedData, NamedDataStore


@dataclass(frozen=True)
class Layout:
    """Stands in for executorch.exir.tensor_layout.TensorLayout (opaque to the store)."""

    scalar_type: str
    sizes: tuple[int, ...]
    dim_order: tuple[int, ...]


def _shard_tag(prefix: str, keys: list[str]) -> str:
    return f"{prefix}_{hashlib.sha256(chr(0).join(sorted(keys)).encode('utf-8')).hexdigest()}"


# --------------------------------------------------------------------------------------------
# test_named_data_store.py: externalize_pte_data


def test_externalize_counts_an_aliased_buffer_once() -> None:
    store = NamedDataStore()
    layout = Layout("float", (1,), (0,))
    store.add_named_data("key_a", b"aaaaaa", 16, None, layout)
    store.add_named_data("key_a_alias", b"aaaaaa", 32, None, layout)
    store.add_named_data("key_b", b"bbbb", 16, None, layout)
    buffers = list(store.buffers)
    entries = copy.deepcopy(store.pte_data)

    store.externalize_pte_data(10, "test_constants")  # 6 + 4 fits only if the alias is free

    output = store.get_named_data_store_output()
    assert output.buffers == buffers
    assert output.pte_data == {}
    assert list(output.external_data.values()) == [entries]
    assert list(output.external_data) == [_shard_tag("test_constants", list(entries))]


def test_externalize_rollover_does_not_depend_on_insertion_order() -> None:
    payloads = {
        "key_a": (b"a" * 6, 16),
        "key_a_alias": (b"a" * 6, 32),
        "key_b": (b"b" * 4, 32),
        "key_c": (b"c" * 5, 64),
    }

    def externalized(order: list[str]) -> dict[str, list[tuple[str, bytes, int, object]]]:
        store = NamedDataStore()
        for key in order:
            store.add_named_data(key, *payloads[key])
        store.externalize_pte_data(10, "test_constants")
        output = store.get_named_data_store_output()
        return {
            tag: [
                (key, output.buffers[e.buffer_index], e.alignment, e.tensor_layout)
                for key, e in entries.items()
            ]
            for tag, entries in output.external_data.items()
        }

    forward = externalized(["key_a", "key_a_alias", "key_b", "key_c"])
    reverse = externalized(["key_c", "key_b", "key_a_alias", "key_a"])
    assert len(forward) == 2
    assert forward == reverse


def _check_refused(store: NamedDataStore, match: str) -> None:
    """Externalizing at a cap of 10 raises ValueError matching ``match`` and changes nothing."""
    before = (
        list(store.buffers),
        copy.deepcopy(store.pte_data),
        copy.deepcopy(store.external_data),
    )
    with pytest.raises(ValueError, match=match):
        store.externalize_pte_data(10, "test_constants")
    assert (list(store.buffers), store.pte_data, store.external_data) == before


def test_externalize_refuses_an_oversized_buffer_and_changes_nothing() -> None:
    store = NamedDataStore()
    store.add_named_data("external", b"ext", 8, "existing")
    store.add_named_data("key_a", b"aaaa", 16)
    store.add_named_data("key_z", b"z" * 11, 32)
    _check_refused(store, "exceeds external data shard cap")


def test_externalize_accepts_a_production_sized_buffer(make_sparse) -> None:
    size = 1_174_405_120
    with FileBackedData(make_sparse("largest.bin", size)) as largest:
        store = NamedDataStore()
        store.add_named_data("largest", largest, 16)
        assert len(store.buffers[0]) == size

        store.externalize_pte_data(1_500_000_000, "vulkan_constants")

        output = store.get_named_data_store_output()
        assert output.pte_data == {}
        assert [list(entries) for entries in output.external_data.values()] == [["largest"]]
        assert output.buffers[0] is largest


@pytest.mark.parametrize("cap", [True, 0, -1, 1.5, "10"])
def test_externalize_refuses_invalid_caps(cap: object) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        NamedDataStore().externalize_pte_data(cap, "test_constants")  # type: ignore[arg-type]  # the wrong type is the point


def test_externalize_refuses_an_empty_prefix() -> None:
    with pytest.raises(ValueError, match="prefix must be nonempty"):
        NamedDataStore().externalize_pte_data(10, "")


def test_externalize_refuses_a_tag_collision_and_changes_nothing() -> None:
    store = NamedDataStore()
    tag = f"test_constants_{hashlib.sha256(b'inline').hexdigest()}"  # the tag "inline" would get
    store.add_named_data("external", b"ext", 8, tag)
    store.add_named_data("inline", b"inline", 16)
    _check_refused(store, "external data tag collision")


def test_externalize_keeps_existing_external_data_and_is_idempotent() -> None:
    store = NamedDataStore()
    store.add_named_data("external", b"ext", 8, "existing")
    store.add_named_data("inline", b"inline", 16)

    store.externalize_pte_data(10, "test_constants")
    first = copy.deepcopy(store.get_named_data_store_output())
    store.externalize_pte_data(10, "test_constants")
    second = store.get_named_data_store_output()

    assert first == second
    assert list(second.external_data["existing"]) == ["external"]
    assert len(second.external_data) == 2


# --------------------------------------------------------------------------------------------
# test_named_data_store.py: add, duplicates, merge, fingerprints


def test_add_inline_and_external() -> None:
    store = NamedDataStore()
    store.add_named_data("key1", b"data1", None, None)
    store.add_named_data("key2", b"data2", 16, "file1")
    store.add_named_data("key3", b"data3", 16, "file1")

    output = store.get_named_data_store_output()
    assert output.buffers == [b"data1", b"data2", b"data3"]
    assert output.pte_data == {"key1": DataEntry(0, 1, None)}
    assert output.external_data == {
        "file1": {"key2": DataEntry(1, 16, None), "key3": DataEntry(2, 16, None)}
    }


@pytest.mark.parametrize("data", [bytearray(b"\x01\x02"), [1, 2, 3, 4], 1.5])
def test_add_of_an_unsupported_type_stores_nothing(data: object) -> None:
    store = NamedDataStore()
    with pytest.raises(TypeError, match="Unsupported named data type"):
        store.add_named_data("key", data, 1, None, Layout("int", (2, 2), (0, 1)))  # type: ignore[arg-type]  # the wrong type is the point
    assert store.get_named_data_store_output().buffers == []


def test_add_duplicate_name_and_data() -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", None, None)
    store.add_named_data("key", b"data", None, None)

    output = store.get_named_data_store_output()
    assert output.buffers == [b"data"]
    assert output.pte_data == {"key": DataEntry(0, 1, None)}
    assert output.external_data == {}


def test_same_data_under_two_keys_keeps_each_alignment() -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", 3, None)
    store.add_named_data("key1", b"data", 4, None)

    output = store.get_named_data_store_output()
    assert output.buffers == [b"data"]
    assert output.pte_data == {"key": DataEntry(0, 3, None), "key1": DataEntry(0, 4, None)}
    assert output.external_data == {}


def test_duplicate_key_with_other_data_fails() -> None:
    store = NamedDataStore()
    store.add_named_data("key", b"data", None, None)

    with pytest.raises(ValueError):
        store.add_named_data("key", b"data1", None, None)
    with pytest.raises(ValueError):
        store.add_named_data("key", b"data1", 16, "file1")

    output = store.get_named_data_store_output()
    assert output.buffers == [b"data"]
    assert output.pte_data == {"key": DataEntry(0, 1, None)}
    assert output.external_data == {}


def test_same_data_with_different_tensor_layouts() -> None:
    first, second = Layout("float", (1, 2), (0, 1)), Layout("float", (2, 1), (0, 1))
    store = NamedDataStore()
    store.add_named_data("key", b"data", None, None, first)
    store.add_named_data("key1", b"data", None, None, second)

    output = store.get_named_data_store_output()
    assert output.buffers == [b"data"]
    assert output.pte_data == {"key": DataEntry(0, 1, first), "key1": DataEntry(0, 1, second)}


def test_merge() -> None:
    layout = Layout("float", (1, 2), (0, 1))
    store1 = NamedDataStore()
    store1.add_named_data("key1", b"data1", None, None, layout)
    store1.add_named_data("key2", b"data2", 16, "file1")
    output1 = store1.get_named_data_store_output()
    assert (len(output1.buffers), len(output1.pte_data)) == (2, 1)
    assert {t: len(e) for t, e in output1.external_data.items()} == {"file1": 1}

    store2 = NamedDataStore()
    store2.add_named_data("key1", b"data1", None, None, layout)
    store2.add_named_data("key3", b"data3", None, None)
    store2.add_named_data("key4", b"data4", 16, "file1")
    store2.add_named_data("key5", b"data5", 16, "file2")
    output2 = store2.get_named_data_store_output()
    assert (len(output2.buffers), len(output2.pte_data)) == (4, 2)
    assert {t: len(e) for t, e in output2.external_data.items()} == {"file1": 1, "file2": 1}

    store1.merge_named_data_store(output2)

    merged = store1.get_named_data_store_output()
    assert len(merged.buffers) == 5  # data1 is in both stores and kept once
    assert len(merged.pte_data) == 2
    assert merged.pte_data["key1"] == DataEntry(0, 1, layout)
    assert {t: len(e) for t, e in merged.external_data.items()} == {"file1": 2, "file2": 1}


def test_merge_of_a_key_with_other_data_fails() -> None:
    store1 = NamedDataStore()
    store1.add_named_data("key1", b"data1", None, None)
    store2 = NamedDataStore()
    store2.add_named_data("key1", b"data2", None, None)

    with pytest.raises(ValueError):
        store1.merge_named_data_store(store2.get_named_data_store_output())
    assert store1.get_named_data_store_output().buffers == [b"data1"]


def _fingerprint_collision() -> tuple[NamedDataStore, bytes, bytes]:
    """A store of two blobs of one length and first 32 bytes (one fingerprint), other contents."""
    prefix = b"A" * 32
    data1, data2 = prefix + b"X" * 100, prefix + b"Y" * 100
    store = NamedDataStore()
    store.add_named_data("key1", data1, None, None)
    store.add_named_data("key2", data2, None, None)
    return store, data1, data2


def test_fingerprint_collision_is_not_deduplicated() -> None:
    store, data1, data2 = _fingerprint_collision()

    output = store.get_named_data_store_output()
    assert output.buffers == [data1, data2]
    assert [output.pte_data[k].buffer_index for k in ("key1", "key2")] == [0, 1]


def test_fingerprint_collision_then_a_true_duplicate() -> None:
    store, data1, _ = _fingerprint_collision()
    store.add_named_data("key3", data1, None, None)

    output = store.get_named_data_store_output()
    assert len(output.buffers) == 2
    assert [output.pte_data[k].buffer_index for k in ("key1", "key2", "key3")] == [0, 1, 0]


def test_file_backed_data_dedup_across_merges(tmp_path: Path) -> None:
    paths = [tmp_path / f"data{i}" for i in range(2)]
    for path in paths:
        path.write_bytes(b"file-backed data")

    with FileBackedData.move_from(paths[0]) as file1, FileBackedData.move_from(paths[1]) as file2:
        store1 = NamedDataStore()
        store1.add_named_data("key1", file1, external_tag="model")
        store2 = NamedDataStore()
        store2.add_named_data("key2", file2, external_tag="model")
        output2 = store2.get_named_data_store_output()

        store1.merge_named_data_store(output2)
        output1 = store1.get_named_data_store_output()
        assert len(output1.buffers) == 1
        assert output1.buffers[0] is file1
        assert output2.buffers[0] is file2
        assert len(os.listdir(tmp_path)) == 2  # the duplicate's file was not deleted

        store3 = NamedDataStore()
        store3.merge_named_data_store(output2)  # the same output merges again
        assert store3.buffers[0] is file2

    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------------------------
# test_cord.py


def test_cord_init() -> None:
    assert len(Cord()) == 0
    cord = Cord(b"HelloWorld")
    assert (len(cord), bytes(cord)) == (10, b"HelloWorld")
    copied = Cord(cord)
    assert (len(copied), bytes(copied)) == (10, b"HelloWorld")
    assert copied.pieces[0] is cord.pieces[0]  # no copy of the piece was made


def test_cord_append() -> None:
    cord = Cord()
    cord.append(b"Hello")
    assert (len(cord), bytes(cord)) == (5, b"Hello")
    cord.append(b"World")
    assert (len(cord), bytes(cord)) == (10, b"HelloWorld")


def test_cord_append_cord() -> None:
    inner = Cord()
    inner.append(b"Hello")
    inner.append(b"World")
    outer = Cord()
    outer.append(b"Prefix")
    outer.append(inner)
    assert (len(outer), bytes(outer)) == (16, b"PrefixHelloWorld")
    assert outer.pieces[1] is inner.pieces[0] and outer.pieces[2] is inner.pieces[1]


def test_cord_write_to_file() -> None:
    cord = Cord()
    cord.append(b"Hello")
    cord.append(b"World")
    out = io.BytesIO()
    cord.write_to_file(out)
    assert out.getvalue() == b"HelloWorld"


def test_cord_with_file_backed_data(tmp_path: Path) -> None:
    source = tmp_path / "source.bin"
    source.write_bytes(b"FileBacked")

    with FileBackedData.move_from(source) as data:
        assert not source.exists()
        assert len(data) == 10
        cord = Cord(b"Prefix")
        cord.append(data)
        out = io.BytesIO()
        cord.write_to_file(out)
        assert out.getvalue() == b"PrefixFileBacked"
        assert bytes(cord) == b"PrefixFileBacked"

    assert os.listdir(tmp_path) == []
