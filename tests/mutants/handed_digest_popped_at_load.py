"""Breaks: HOOK-LOW-4

The digest handed from ``materialize_weights_blob`` to ``load_weights_blob`` through a module-level
map from the blob's absolute path to its stamp and digest, checked against the file and removed by
the load that uses it: a materialize whose load never comes leaves its entry for ever.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._handed_map import HandedMap, HandedMapWeights
from ._proofs_b import stale_text_load


class Backend(HandedMap):
    """The map as it is: keyed by the absolute path, emptied by the load that comes."""


IMPLEMENTATION = implementation(__name__, low_memory=HandedMapWeights(Backend))


def scenario(impl: Implementation) -> str | None:
    return stale_text_load(impl, None)
