"""Breaks: NDS-KEY-3, NDS-MERGE-5
Profile: core
Bug: the "Duplicate key" message gives the two sizes the wrong way round: the new blob's size as
the existing one's and the existing one's as the new one's.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _readd(
        self,
        key: str,
        data: reference.CordBuffer,
        alignment: int,
        tag: str | None,
        layout: object,
    ) -> DataEntry | None:
        try:
            return super()._readd(key, data, alignment, tag, layout)
        except ValueError as exc:
            if "with different data" not in str(exc):
                raise
            existing = self.buffers[self._entries(self._tags[key])[key].buffer_index]
            raise ValueError(
                f"Duplicate key {key} with different data. "
                f"Existing data size: {len(data)} bytes. "
                f"New data size: {len(existing)} bytes."
            ) from None


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("k", b"abc")
    try:
        store.add_named_data("k", b"abcdefg")
    except ValueError as exc:
        expected = (
            "Duplicate key k with different data. Existing data size: 3 bytes. "
            "New data size: 7 bytes."
        )
        return None if str(exc) == expected else f"the message is {str(exc)!r}"
    return "a key re-added with other data was accepted"
