"""Breaks: NDS-KEY-1
Profile: core
Bug: a key is looked up only in the map it is added to (each file's own keys), so a key that is
inline can be added again under a tag, with other data: the store then holds two entries for it.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import inline_then_tagged


class NamedDataStore(reference.NamedDataStore):
    def _add(
        self, key: str, data: reference.CordBuffer, alignment: int, tag: str | None, layout: object
    ) -> None:
        if key in self._tags and self._tags[key] != tag:
            probe = f"{key}\0{tag}"  # a fresh name in the other map, then renamed
            super()._add(probe, data, alignment, tag, layout)
            entries = self._unlend(tag)
            entries[key] = entries.pop(probe)
            del self._tags[probe]
            return
        super()._add(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    out, refused = inline_then_tagged(impl, b"inline data", b"other data")
    if refused:
        return None
    places = ["inline"] * ("k" in out.pte_data) + [
        t for t, m in out.external_data.items() if "k" in m
    ]
    return f"key 'k' added inline and again under tag 't' with other data: entries in {places}"
