"""Breaks: NDS-ALIGN-1
Profile: core
Bug: the port follows the ``NamedDataStore`` docstring rather than the code: when a new key shares
a buffer with earlier keys, every key of that buffer takes the lcm of their alignments.
"""

from __future__ import annotations

import math
from dataclasses import replace

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _add(self, key: str, data: object, alignment: int, tag: str | None, layout: object) -> None:
        new = key not in self._tags
        super()._add(key, data, alignment, tag, layout)
        if not new:
            return
        index = self._entries(tag)[key].buffer_index
        sharing = [
            (k, t) for k, t in self._tags.items() if self._entries(t)[k].buffer_index == index
        ]
        combined = math.lcm(*(self._entries(t)[k].alignment for k, t in sharing))
        for k, t in sharing:
            entry = self._entries(t)[k]
            if entry.alignment != combined:
                self._unlend(t)[k] = replace(entry, alignment=combined)
                self._changes += 1


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"shared weights", alignment=16)
    store.add_named_data("b", b"shared weights", alignment=3)
    out = store.get_named_data_store_output()
    got = (out.pte_data["a"].alignment, out.pte_data["b"].alignment)
    if got != (16, 3):
        return f"keys sharing a buffer, added with alignments 16 and 3, have {got}"
    return None
