"""Breaks: NDS-MERGE-6, NDS-MERGE-7, NDS-ATOMIC-2, NDS-MERGE-9

A merge that adds each entry as it replays it instead of staging them: when it fails half-way (a
key conflict, a malformed entry: NDS-MERGE-7), the entries replayed before it stay merged, and
an interrupt between two entries leaves the store neither before nor after the merge (NDS-ATOMIC-2),
and an input whose code adds to the target while it is read is merged around those adds instead of
being refused (NDS-MERGE-9).
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference.named_data import _checked, _maps, _tag

from . import implementation
from ._base import Store
from ._proofs_b import raised


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        buffers, maps, _ = _maps(other)
        for where, size, pairs in maps:
            tag = _tag(where) if size else None
            for key, entry in pairs:
                data = buffers[entry.buffer_index]
                self._add(*_checked(key, data, entry.alignment, tag), entry.tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store, entry = impl.NamedDataStore(), impl.DataEntry
    broken = {"a": entry(0, 1, None), "b": entry(5, 1, None)}  # b's buffer is out of range
    error = raised(
        lambda: store.merge_named_data_store(impl.NamedDataStoreOutput([b"A"], broken, {}))
    )
    merged = sorted(store.key_to_buffer_idx)
    if not isinstance(error, ValueError) or merged:
        return f"a merge that failed at its second entry ({error!r}) left {merged} merged"
    return None
