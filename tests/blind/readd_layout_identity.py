"""Breaks: NDS-KEY-2
Profile: core
Bug: a re-added key's ``tensor_layout`` is compared by identity (``is not``), so an equal layout
built again by the caller is reported as a different layout.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


class NamedDataStore(named_data.NamedDataStore):
    def _readd(self, key, data, alignment, tag, layout):
        changed = super()._readd(key, data, alignment, tag, layout)
        stored = self._entries(self._tags[key])[key].tensor_layout
        if layout is not stored:
            raise ValueError(f"Duplicate key {key!r} with a different tensor layout")
        return changed


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"x", tensor_layout={"dtype": "f32", "shape": [2]})
    try:
        store.add_named_data("w", b"x", tensor_layout={"dtype": "f32", "shape": [2]})
    except ValueError as exc:
        return f"re-adding a key with an equal layout raised: {exc}"
    return None
