"""Breaks: NDS-MERGE-7
Profile: strict
Bug: a merge checks that the output's maps are ``dict`` with ``type(m) is dict``, so a read-only
``Mapping`` that is not a dict (a ``MappingProxyType``) is refused with ``TypeError`` instead of
being read as the dict would be.
"""

from __future__ import annotations

from types import MappingProxyType

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def merge_named_data_store(self, other: reference.NamedDataStoreOutput) -> None:
        maps = {"pte_data": getattr(other, "pte_data", None)}
        external = getattr(other, "external_data", None)
        maps["external_data"] = external
        if type(external) is dict:
            maps.update({f"external_data[{t!r}]": m for t, m in external.items()})
        for name, value in maps.items():
            if value is not None and type(value) is not dict:
                raise TypeError(f"{name} must be a dict, not {type(value).__name__}")
        super().merge_named_data_store(other)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    entry = impl.DataEntry(0, 1, None)
    out = impl.NamedDataStoreOutput(
        [b"weights"], MappingProxyType({"k": entry}), MappingProxyType({})
    )
    store = impl.NamedDataStore()
    try:
        store.merge_named_data_store(out)
    except TypeError as exc:
        return f"an output whose maps are MappingProxyType was refused: {exc}"
    if "k" not in store.get_named_data_store_output().pte_data:
        return "the key of a MappingProxyType map was not merged"
    return None
