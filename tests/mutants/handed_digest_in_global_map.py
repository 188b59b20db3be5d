"""Breaks: HOOK-LOW-4

The digest handed from ``materialize_weights_blob`` to ``load_weights_blob`` through a module-level
map from the blob's absolute path to its stamp and digest, checked against the file (so never
stale) but never emptied: every blob ever written stays in it after its load.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._handed_map import HandedMap, HandedMapWeights, Stamp
from ._proofs_b import stale_text_load


class Backend(HandedMap):
    @classmethod
    def _taken(cls, key: str) -> tuple[Stamp, bytes] | None:
        return cls.handed.get(key)  # never removed


IMPLEMENTATION = implementation(__name__, low_memory=HandedMapWeights(Backend))


def scenario(impl: Implementation) -> str | None:
    return stale_text_load(impl, lambda returned: returned)
