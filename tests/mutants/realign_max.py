"""Breaks: NDS-ALIGN-2

A re-added key with another alignment gets the larger of the two, not their lcm: the same for
powers of two, wrong for 4 and 6 (6, where 12 satisfies both).
"""

from __future__ import annotations

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    @staticmethod
    def _combined_alignment(old: int, new: int) -> int:
        return max(old, new)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
