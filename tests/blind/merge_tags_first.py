"""Breaks: NDS-MERGE-1, NDS-DEDUP-9
Profile: core
Bug: a merge replays ``external_data`` before ``pte_data``, so the merged buffers come in another
order than adding the entries in replay order (inline first) would give.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import NamedDataStoreOutput

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        super().merge_named_data_store(NamedDataStoreOutput(other.buffers, {}, other.external_data))
        super().merge_named_data_store(NamedDataStoreOutput(other.buffers, other.pte_data, {}))


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    source = impl.NamedDataStore()
    source.add_named_data("inline", b"inline blob")
    source.add_named_data("ext", b"external blob", external_tag="model")
    target = impl.NamedDataStore()
    target.merge_named_data_store(source.get_named_data_store_output())
    got = list(target.get_named_data_store_output().buffers)
    if got != [b"inline blob", b"external blob"]:
        return f"a merge into an empty store gave buffers {got}"
    return None
