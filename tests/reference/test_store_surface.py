"""The reference store's de-facto public surface (SPEC.md 4.8): ``key_to_buffer_idx``."""

from __future__ import annotations

import pytest

from reference import NamedDataStore


def test_key_to_buffer_idx_is_a_live_read_only_view() -> None:
    store = NamedDataStore()
    view = store.key_to_buffer_idx
    assert len(view) == 0 and "a" not in view and list(view) == []
    store.add_named_data("a", b"same", 1)
    store.add_named_data("b", b"same", 1, "tag")
    store.add_named_data("c", b"other", 1)
    assert dict(view) == {"a": 0, "b": 0, "c": 1}
    assert len(view) == 3 and "b" in view and 5 not in view
    with pytest.raises(KeyError):
        view["missing"]
    with pytest.raises(TypeError):
        view["d"] = 2  # type: ignore[index]  # read-only: the test of it
    store.externalize_pte_data(1 << 20, "shard")
    assert dict(store.key_to_buffer_idx) == {"a": 0, "b": 0, "c": 1}
