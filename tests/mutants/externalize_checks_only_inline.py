"""Breaks: NDS-EXT-1

``externalize_pte_data`` that returns at once when nothing is inline, before checking its
arguments: an empty prefix or a zero cap passes when there is nothing to move.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import refused


class NamedDataStore(Store):
    def externalize_pte_data(self, max_data_bytes: Any, tag_prefix: Any) -> None:
        if not self.pte_data:
            return
        super().externalize_pte_data(max_data_bytes, tag_prefix)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    empty = impl.NamedDataStore()
    return refused(
        lambda: empty.externalize_pte_data(0, "shard"), ValueError, "a cap of 0, nothing inline"
    )
