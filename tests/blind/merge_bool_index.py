"""Breaks: NDS-MERGE-7
Profile: strict
Bug: a hand-made output's ``buffer_index`` is normalised with ``int(index)`` after an
``isinstance(index, int)`` check, so ``True`` is taken as buffer 1 instead of being refused.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation


def _fixed(entries: object) -> object:
    if type(entries) is not dict:
        return entries
    return {
        k: DataEntry(int(e.buffer_index), e.alignment, e.tensor_layout)
        if type(getattr(e, "buffer_index", None)) is bool
        else e
        for k, e in entries.items()
    }


class NamedDataStore(reference.NamedDataStore):
    def merge_named_data_store(self, other: reference.NamedDataStoreOutput) -> None:
        if type(other) is reference.NamedDataStoreOutput and type(other.external_data) is dict:
            other = reference.NamedDataStoreOutput(
                other.buffers,
                _fixed(other.pte_data),  # type: ignore[arg-type]
                {t: _fixed(m) for t, m in other.external_data.items()},  # type: ignore[misc]
            )
        super().merge_named_data_store(other)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    out = impl.NamedDataStoreOutput([b"zero", b"one"], {"k": impl.DataEntry(True, 1, None)}, {})
    store = impl.NamedDataStore()
    try:
        store.merge_named_data_store(out)
    except ValueError as exc:
        return None if "'k'" in str(exc) else f"the error does not name the key: {exc}"
    return "an entry whose buffer_index is True was merged"
