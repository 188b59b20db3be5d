"""Breaks: NDS-DEDUP-5, NDS-DEDUP-6

Dedup that keeps the last object: a blob equal to a stored buffer replaces it, so the buffer is no
longer the object added first.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_a import store_of


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        super()._add(key, data, alignment, tag, layout)
        entries = self.pte_data if self._tags[key] is None else self.external_data[self._tags[key]]
        self.buffers[entries[key].buffer_index] = data


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    first, second = (bytes(bytearray(b"w" * 40)) for _ in range(2))
    out = store_of(impl, ("a", first), ("b", second))
    if len(out.buffers) != 1 or out.buffers[0] is not first:
        return "the buffer of two equal blobs is not the object added first"
    return None
