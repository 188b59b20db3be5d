"""Breaks: NDS-MERGE-1
Profile: core
Bug: ``merge_named_data_store(None)`` returns early as "nothing to merge" instead of raising.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


class NamedDataStore(named_data.NamedDataStore):
    def merge_named_data_store(self, other: named_data.NamedDataStoreOutput) -> None:
        if other is None:
            return
        super().merge_named_data_store(other)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"x")
    try:
        store.merge_named_data_store(None)
    except (AttributeError, TypeError):
        return None
    return "merge_named_data_store(None) returned without an error"
