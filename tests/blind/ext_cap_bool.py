"""Breaks: NDS-EXT-1
Profile: core
Bug: the shard cap is checked with ``isinstance(max_data_bytes, int) and max_data_bytes > 0``,
so ``True`` passes as a cap of one byte.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation
from ._support import externalize_refused


class NamedDataStore(named_data.NamedDataStore):
    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
        if max_data_bytes is True:
            max_data_bytes = 1
        super().externalize_pte_data(max_data_bytes, tag_prefix)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return externalize_refused(impl, True)
