"""A reference store built from a list of adds, for the tests of the reference's store."""

from __future__ import annotations

from typing import Any

from reference import NamedDataStore

__all__ = ["store_with"]


def store_with(*adds: tuple[Any, ...]) -> NamedDataStore:
    """A new reference store with ``add_named_data(*args)`` called for each ``args`` of ``adds``,
    in order."""
    store = NamedDataStore()
    for args in adds:
        store.add_named_data(*args)
    return store
