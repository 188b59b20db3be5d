"""Breaks: NDS-MERGE-1, NDS-MERGE-5, NDS-MERGE-7

``merge_named_data_store`` that replays only ``other``'s inline entries: its external data is
silently dropped, and with them its conflicts with the target (NDS-MERGE-5) and any malformed
external entry, which is never looked at (NDS-MERGE-7).
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        inline_only = reference.NamedDataStoreOutput(other.buffers, other.pte_data, {})
        super().merge_named_data_store(inline_only)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    external = {"tag": {"w": impl.DataEntry(0, 1, None)}}
    store.merge_named_data_store(impl.NamedDataStoreOutput([b"weights"], {}, external))
    return None if "w" in store.key_to_buffer_idx else "a merge dropped the external entry 'w'"
