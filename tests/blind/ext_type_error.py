"""Breaks: NDS-EXT-1
Profile: core
Bug: ``externalize_pte_data`` raises ``TypeError`` for a shard cap of the wrong type, "as
elsewhere", where this call's note says a wrong type is a ``ValueError`` too.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import externalize_refused


class NamedDataStore(reference.NamedDataStore):
    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
        if type(max_data_bytes) is not int:
            raise TypeError(f"max_data_bytes must be int, not {type(max_data_bytes).__name__}")
        super().externalize_pte_data(max_data_bytes, tag_prefix)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return externalize_refused(impl, 4.0)
