"""Breaks: NDS-KEY-6

A re-added key's layout compared only when one is given (``None`` taken as "unspecified"): re-adding
a key that has a layout with ``tensor_layout=None`` passes silently.
"""

from __future__ import annotations

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    @staticmethod
    def _other_layout(old: object, new: object) -> bool:
        return new is not None and bool(new != old)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
