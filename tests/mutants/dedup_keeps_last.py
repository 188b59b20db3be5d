"""Breaks: NDS-DEDUP-5, NDS-DEDUP-6

Dedup that keeps the last object: a blob equal to a stored buffer replaces it, so the buffer is no
longer the object added first.
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        super()._add(key, data, alignment, tag, layout)
        entries = self.pte_data if self._tags[key] is None else self.external_data[self._tags[key]]
        self.buffers[entries[key].buffer_index] = data


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
