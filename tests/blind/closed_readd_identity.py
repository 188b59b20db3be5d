"""Breaks: FBD-CLOSED-1
Profile: strict
Bug: re-adding the very object a key names is judged equal by identity before anything else, so a
closed ``FileBackedData`` re-added under its own key is accepted (with a new alignment, the entry
even changes) instead of raising ``ValueError``.
"""

from __future__ import annotations

import math
from dataclasses import replace

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation
from ._support import directory, make_file


class NamedDataStore(reference.NamedDataStore):
    def _readd(
        self, key: str, data: object, alignment: int, tag: str | None, layout: object
    ) -> DataEntry | None:
        old_tag = self._tags[key]
        entry = self._entries(old_tag)[key]
        if data is self.buffers[entry.buffer_index] and tag == old_tag:
            if layout != entry.tensor_layout:
                raise ValueError(f"Duplicate key {key!r} with a different tensor layout")
            combined = math.lcm(entry.alignment, alignment)
            return None if combined == entry.alignment else replace(entry, alignment=combined)
        return super()._readd(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(tmp + "/w", b"weights"))
        store = impl.NamedDataStore()
        store.add_named_data("w", blob)
        blob.close()
        try:
            store.add_named_data("w", blob, alignment=16)
        except ValueError:
            return None
        return "a closed FileBackedData re-added under its own key was accepted"
