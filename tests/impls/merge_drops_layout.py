"""A port with one bug, as a porter's CI would meet it: the reference, but
``merge_named_data_store`` drops every entry's ``tensor_layout`` (merged entries get None).

``tests/test_deviations.py`` declares the clauses its plain run fails, by clause, and expects a
verdict of exactly those clauses as expected deviations."""

from __future__ import annotations

import reference
from reference import Cord, DataEntry, FileBackedData, NamedDataStoreOutput

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]


def _without_layouts(entries: dict[str, DataEntry]) -> dict[str, DataEntry]:
    return {
        key: DataEntry(entry.buffer_index, entry.alignment)
        if isinstance(entry, DataEntry)
        else entry
        for key, entry in entries.items()
    }


class NamedDataStore(reference.NamedDataStore):
    """The reference store, whose merge forgets the layouts of the entries it takes."""

    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        try:
            stripped = NamedDataStoreOutput(
                list(other.buffers),
                _without_layouts(other.pte_data),
                {tag: _without_layouts(m) for tag, m in other.external_data.items()},
            )
        except (AttributeError, TypeError):  # a malformed output: the reference explains it
            stripped = other
        super().merge_named_data_store(stripped)
