"""Breaks: NDS-SURFACE-1

``key_to_buffer_idx`` built once, at its first read, and kept: keys added, merged or moved later
are missing from it, as a cache that is never brought up to date would have them.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.api import Implementation

from . import implementation
from ._base import Store


class StaleStore(Store):
    _kept: dict[str, int] | None = None

    @property
    def key_to_buffer_idx(self) -> Mapping[str, int]:
        if self._kept is None:
            self._kept = dict(super().key_to_buffer_idx)
        return self._kept


IMPLEMENTATION = implementation(__name__, NamedDataStore=StaleStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("first", b"1")
    seen = "first" in store.key_to_buffer_idx
    store.add_named_data("second", b"2")
    if not seen or "second" not in store.key_to_buffer_idx:
        return "key_to_buffer_idx lacks a key added after it was first read"
    return None
