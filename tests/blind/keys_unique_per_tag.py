"""Breaks: NDS-KEY-1
Profile: core
Bug: a key is looked up only in the map it is added to (each file's own keys), so a key that is
inline can be added again under a tag, with other data: the store then holds two entries for it.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(
        self,
        key: str,
        data: reference.CordBuffer,
        alignment: int | None = 1,
        external_tag: str | None = None,
        tensor_layout: object | None = None,
    ) -> None:
        if type(key) is str and key in self._tags and self._tags[key] != external_tag:
            probe = f"{key}\0{external_tag}"  # a fresh name in the other map, then renamed
            super().add_named_data(probe, data, alignment, external_tag, tensor_layout)
            entries = self._unlend(external_tag)
            entries[key] = entries.pop(probe)
            del self._tags[probe]
            return
        super().add_named_data(key, data, alignment, external_tag, tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("k", b"inline data")
    try:
        store.add_named_data("k", b"other data", external_tag="t")
    except ValueError:
        return None
    out = store.get_named_data_store_output()
    places = ["inline"] * ("k" in out.pte_data) + [
        t for t, m in out.external_data.items() if "k" in m
    ]
    return f"key 'k' added inline and again under tag 't' with other data: entries in {places}"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
