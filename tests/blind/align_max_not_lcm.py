"""Breaks: NDS-ALIGN-2
Profile: strict
Bug: a key re-added with another alignment keeps the larger of the two instead of their lcm (the
same for powers of two, wrong for 4 and 6: 6, not 12).
"""

from __future__ import annotations

from dataclasses import replace

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _readd(
        self, key: str, data: object, alignment: int, tag: str | None, layout: object
    ) -> DataEntry | None:
        entry = self._entries(self._tags[key])[key]
        changed = super()._readd(key, data, alignment, tag, layout)
        if changed is None:
            return None
        return replace(changed, alignment=max(entry.alignment, alignment))


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights", alignment=4)
    store.add_named_data("w", b"weights", alignment=6)
    got = store.get_named_data_store_output().pte_data["w"].alignment
    if got != 12:
        return f"re-adding with alignments 4 then 6 gave alignment {got}, not lcm 12"
    return None
