"""Breaks: NDS-EXT-1
Profile: core
Bug: ``externalize_pte_data`` returns at once when nothing is inline, before checking its
arguments, so an invalid cap or prefix passes on a store with no inline data.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
        if not self.pte_data:
            return  # nothing to move
        super().externalize_pte_data(max_data_bytes, tag_prefix)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights", external_tag="model")
    for cap, prefix in ((0, "shard"), (100, "")):
        try:
            store.externalize_pte_data(cap, prefix)
        except ValueError:
            continue
        return f"externalize_pte_data({cap!r}, {prefix!r}) with nothing inline did not raise"
    return None
