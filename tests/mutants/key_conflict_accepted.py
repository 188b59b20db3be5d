"""Breaks: NDS-KEY-3, NDS-MERGE-5

A key already present keeps its buffer, whatever contents are added under it later: a duplicate
key with different data is silently accepted (and so is a conflicting key in a merge). The rules
for the place, the layout and the alignment of a re-added key still hold.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import refused


class NamedDataStore(Store):
    def _readd(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> Any:
        stored = self.buffers[self._entries(self._tags[key])[key].buffer_index]
        return super()._readd(key, stored, alignment, tag, layout)  # compared with itself


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"first weights")
    return refused(
        lambda: store.add_named_data("w", b"other weights"), ValueError, "'w' added again, other"
    )
