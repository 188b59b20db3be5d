"""NamedDataStore's de-facto public surface: the attributes ExecuTorch's production code reads
beyond the methods of sections 4.1 to 4.7 (spec 4.8)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance.api import Implementation

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on


def _places(impl: Implementation, store: Any) -> dict[str, int]:
    """Every key of ``store`` with its buffer index, as an output taken now says."""
    output = store.get_named_data_store_output()
    places = {key: entry.buffer_index for key, entry in output.pte_data.items()}
    for entries in output.external_data.values():
        places.update({key: entry.buffer_index for key, entry in entries.items()})
    return places


def _filled(impl: Implementation) -> Any:
    store: Any = impl.NamedDataStore()
    store.add_named_data("inline", b"shared weights", 1)
    store.add_named_data("tagged", b"shared weights", 1, "aoti_cuda_blob")  # deduplicated
    store.add_named_data("other", b"other weights", 4, "aoti_cuda_blob")
    store.add_named_data("last", b"last", 1)
    return store


class TestKeyToBufferIdx:
    @clause("NDS-SURFACE-1")
    def test_every_key_maps_to_its_buffer(self, impl: Implementation) -> None:
        store = _filled(impl)
        mapping = store.key_to_buffer_idx
        expected = _places(impl, store)
        assert len(expected) == 4
        assert {key: mapping[key] for key in expected} == expected
        assert set(mapping) == set(expected)
        assert len(mapping) == 4
        assert "inline" in mapping and "tagged" in mapping
        assert "absent" not in mapping
        assert mapping.get("absent") is None

    @clause("NDS-SURFACE-1")
    @relies_on("NDS-MERGE-1")  # the merge replays "m", an external entry
    def test_it_follows_adds_merges_and_externalizing(self, impl: Implementation) -> None:
        store: Any = impl.NamedDataStore()
        assert "k" not in store.key_to_buffer_idx
        store.add_named_data("k", b"one", 1)
        assert "k" in store.key_to_buffer_idx
        other: Any = impl.NamedDataStore()
        other.add_named_data("m", b"two", 1, "tag")
        store.merge_named_data_store(other.get_named_data_store_output())
        assert store.key_to_buffer_idx["m"] == _places(impl, store)["m"]
        if hasattr(store, "externalize_pte_data"):
            store.externalize_pte_data(1 << 20, "shard")
            assert {k: store.key_to_buffer_idx[k] for k in ("k", "m")} == _places(impl, store)


class TestStoreAttributes:
    @clause("NDS-SURFACE-2")
    def test_the_store_holds_what_an_output_holds(self, impl: Implementation) -> None:
        store = _filled(impl)
        output = store.get_named_data_store_output()
        assert len(store.buffers) == len(output.buffers)
        assert all(a is b for a, b in zip(store.buffers, output.buffers, strict=True))
        assert dict(store.pte_data) == dict(output.pte_data)
        assert {t: dict(e) for t, e in store.external_data.items() if e} == {
            t: dict(e) for t, e in output.external_data.items()
        }


class TestDataclasses:
    @clause("NDS-SURFACE-3")
    def test_fields_keyword_construction_and_assignable_buffers(self, impl: Implementation) -> None:
        output_class: Any = impl.NamedDataStoreOutput
        entry_class: Any = impl.DataEntry
        assert hasattr(output_class, "__dataclass_fields__"), "not a dataclass"
        assert hasattr(entry_class, "__dataclass_fields__"), "not a dataclass"
        assert [f.name for f in dataclasses.fields(output_class)] == [
            "buffers",
            "pte_data",
            "external_data",
        ]
        assert [f.name for f in dataclasses.fields(entry_class)] == [
            "buffer_index",
            "alignment",
            "tensor_layout",
        ]
        entry = entry_class(buffer_index=0, alignment=8, tensor_layout=None)
        output = output_class(buffers=[b"data"], pte_data={"k": entry}, external_data={})
        assert output.pte_data["k"].alignment == 8
        output.buffers = [b"decoded"]
        assert list(output.buffers) == [b"decoded"]
        made = _filled(impl).get_named_data_store_output()
        made.buffers = [bytes(b) if isinstance(b, bytes) else b for b in made.buffers]
        assert len(made.buffers) == 3
