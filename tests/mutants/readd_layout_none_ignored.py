"""Breaks: NDS-KEY-6

A re-added key's layout compared only when one is given (``None`` taken as "unspecified"): re-adding
a key that has a layout with ``tensor_layout=None`` passes silently.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import readd_refused


class NamedDataStore(Store):
    @staticmethod
    def _other_layout(old: object, new: object) -> bool:
        return new is not None and bool(new != old)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return readd_refused(impl, {"tensor_layout": ("f32", (7,))}, {"tensor_layout": None})
