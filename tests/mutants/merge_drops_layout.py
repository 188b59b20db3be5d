"""Breaks: NDS-MERGE-1, NDS-MERGE-4

``merge_named_data_store`` that stages each entry of ``other`` without its ``tensor_layout`` (the
merged entries get None), while ``add_named_data`` keeps it: only a merge of an output whose
entries have layouts shows it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.api import Implementation
from reference import named_data

from . import implementation
from ._base import Store
from ._proofs_b import kept_layout


class Stage(named_data._Stage):
    __slots__ = ()

    def _stage_map(self, tag: Any, pairs: Any, buffers: Any, checked: bool) -> None:
        stripped = [
            (key, dataclasses.replace(entry, tensor_layout=None))
            if isinstance(entry, named_data.DataEntry)
            else (key, entry)
            for key, entry in pairs
        ]
        super()._stage_map(tag, stripped, buffers, checked)


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        stage = Stage(self)
        try:
            stage.merge(other)
        except Exception:
            stage.check_unchanged()
            raise
        stage.commit()


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    entry = impl.DataEntry(0, 1, "layout")
    store.merge_named_data_store(impl.NamedDataStoreOutput([b"weights"], {"w": entry}, {}))
    return kept_layout(store, "merged with")
