"""Breaks: NDS-KEY-3, NDS-MERGE-5

A key already present keeps its entry, whatever is added under it later: a duplicate key with
different data is silently accepted (and so is a conflicting key in a merge).
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _readd(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        return None


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
