"""Breaks: NDS-MERGE-7
Profile: strict
Bug: a merged output's external keys are checked against its ``pte_data`` only, so a key present
under two tags keeps its first entry and silently drops the second.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.api import Implementation
from reference import named_data

from . import implementation
from ._support import merge_refused


class NamedDataStore(named_data.NamedDataStore):
    def merge_named_data_store(self, other: named_data.NamedDataStoreOutput) -> None:
        external = getattr(other, "external_data", None)
        if type(other) is not named_data._Snapshot and isinstance(external, Mapping):
            seen: set[object] = set()
            kept: dict[object, object] = {}
            for tag, entries in external.items():
                if not isinstance(entries, Mapping):
                    kept[tag] = entries
                    continue
                kept[tag] = {k: e for k, e in entries.items() if k not in seen}
                seen.update(entries)
            other = named_data.NamedDataStoreOutput(other.buffers, other.pte_data, kept)
        super().merge_named_data_store(other)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    entry = impl.DataEntry
    other = impl.NamedDataStoreOutput(
        [b"first", b"second"],
        {},
        {"t1": {"k": entry(0, 1, None)}, "t2": {"k": entry(1, 1, None)}},
    )
    return merge_refused(impl, other, "k", "an output with key 'k' under two tags")
