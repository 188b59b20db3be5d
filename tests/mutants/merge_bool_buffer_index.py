"""Breaks: NDS-MERGE-7

A merge whose check of a ``buffer_index`` forgets that ``bool`` is an ``int``: an entry with index
``True`` or ``False`` is merged as buffer 1 or 0 instead of being rejected as malformed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference.named_data import _checked, _where

from . import implementation
from ._base import Store


def _replay(other: Any) -> Iterator[tuple[str, Any, int, str | None, object]]:
    buffers = other.buffers
    seen: dict[str, str | None] = {}
    for tag, entries in [(None, other.pte_data), *other.external_data.items()]:
        for key, entry in entries.items():
            if key in seen:
                raise ValueError(
                    f"key {key!r} appears twice: {_where(seen[key])} and {_where(tag)}"
                )
            seen[key] = tag
            index = entry.buffer_index
            if not isinstance(index, int) or not 0 <= index < len(buffers):
                raise ValueError(f"entry {key!r} refers to buffer {index!r}")
            yield key, buffers[index], entry.alignment, tag, entry.tensor_layout


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        staged = self._clone()
        for key, data, alignment, tag, layout in _replay(other):
            staged._add(*_checked(key, data, alignment, tag), layout)
        self._take(staged)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
