"""Breaks: NDS-MERGE-6

A merge staged in the target store itself instead of a copy of it: when it fails half-way (a key
conflict), the entries replayed before the conflict stay merged.
"""

from __future__ import annotations

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _clone(self) -> NamedDataStore:
        return self


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
