"""Breaks: NDS-MERGE-1, NDS-DEDUP-1

A merge with its own fast path instead of a replay of ``add_named_data``: a buffer of ``other``
is reused when the target holds that very object, and otherwise appended, so a blob of ``other``
equal to (but not the same object as) one of the target's is stored twice.
"""

from __future__ import annotations

from typing import Any

from reference.named_data import DataEntry, _checked, _fingerprint, _replay

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        staged = self._clone()
        for key, data, alignment, tag, layout in _replay(other):
            key, data, alignment, tag = _checked(key, data, alignment, tag)
            if key in staged._tags:
                staged._readd(key, data, alignment, tag, layout)
                continue
            index = next((i for i, b in enumerate(staged.buffers) if b is data), None)
            if index is None:
                index = len(staged.buffers)
                staged.buffers.append(data)
                staged._fingerprints.setdefault(_fingerprint(data), []).append(index)
            entries = staged.pte_data if tag is None else staged.external_data.setdefault(tag, {})
            entries[key] = DataEntry(index, alignment, layout)
            staged._tags[key] = tag
        self._take(staged)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
