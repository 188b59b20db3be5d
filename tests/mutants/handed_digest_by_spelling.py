"""Breaks: HOOK-LOW-4

The digest handed from ``materialize_weights_blob`` to ``load_weights_blob`` through a module-level
map keyed by the blob's path as written, checked against the file and removed by the load that
names it the same way: a load that spells the path otherwise (``dir/./x``, relative or absolute)
leaves the entry for ever.
"""

from __future__ import annotations

import os

from conformance.api import Implementation

from . import implementation
from ._handed_map import HandedMap, HandedMapWeights
from ._proofs_b import stale_text_load


class Backend(HandedMap):
    @staticmethod
    def _key(blob_path: str) -> str:
        return str(blob_path)  # the path as written, however it is spelt


IMPLEMENTATION = implementation(__name__, low_memory=HandedMapWeights(Backend))


def _spelt_otherwise(path: str) -> str:
    return os.path.join(os.path.dirname(path), ".", os.path.basename(path))


def scenario(impl: Implementation) -> str | None:
    return stale_text_load(impl, _spelt_otherwise)
