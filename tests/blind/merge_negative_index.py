"""Breaks: NDS-MERGE-7
Profile: strict
Bug: a hand-made output's ``buffer_index`` is bounds-checked only against the end, as a Python
index: ``-1`` silently names the last buffer instead of raising ``ValueError`` naming the key.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry, NamedDataStoreOutput

from . import implementation
from ._support import merge_refused


def _indexed(entries: object, count: int) -> object:
    if not isinstance(entries, dict):
        return entries
    fixed = {}
    for key, entry in entries.items():
        index = getattr(entry, "buffer_index", None)
        if type(index) is int and -count <= index < 0:
            entry = DataEntry(index + count, entry.alignment, entry.tensor_layout)
        fixed[key] = entry
    return fixed


class NamedDataStore(reference.NamedDataStore):
    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        buffers = getattr(other, "buffers", None)
        if isinstance(buffers, list):
            count = len(buffers)
            external = other.external_data
            if isinstance(external, dict):
                external = {t: _indexed(m, count) for t, m in external.items()}
            other = NamedDataStoreOutput(buffers, _indexed(other.pte_data, count), external)
        super().merge_named_data_store(other)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    other = impl.NamedDataStoreOutput([b"first", b"last"], {"w": impl.DataEntry(-1, 1, None)}, {})
    return merge_refused(impl, other, "w", "an entry with buffer_index -1")
