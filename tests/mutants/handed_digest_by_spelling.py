"""Breaks: HOOK-LOW-4

The digest handed from ``materialize_weights_blob`` to ``load_weights_blob`` through a module-level
map keyed by the blob's path as written, checked against the file and removed by the load that
names it the same way: a load that spells the path otherwise (``dir/./x``, relative or absolute)
leaves the entry for ever.
"""

from __future__ import annotations

from . import implementation
from ._handed_map import HandedMap, HandedMapWeights


class Backend(HandedMap):
    @staticmethod
    def _key(blob_path: str) -> str:
        return str(blob_path)  # the path as written, however it is spelt


IMPLEMENTATION = implementation(__name__, low_memory=HandedMapWeights(Backend))
