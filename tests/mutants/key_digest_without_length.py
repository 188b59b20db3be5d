"""Breaks: NDS-KEY-4, NDS-KEY-3

Key equality by SHA-256 alone, without the length check: re-adding a key with a blob of another
length whose supplied digest equals the stored one is accepted as equal contents.
"""

from __future__ import annotations

from typing import Any

from reference.named_data import _digest

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _readd(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> Any:
        tag_now = self._tags[key]
        entries = self.pte_data if tag_now is None else self.external_data[tag_now]
        index = entries[key].buffer_index
        if _digest(data) == self._buffer_digest(index):
            data = self.buffers[index]  # equal digests: taken as the same blob, length unchecked
        return super()._readd(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
