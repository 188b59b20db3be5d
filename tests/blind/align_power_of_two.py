"""Breaks: NDS-ADD-4
Profile: core
Bug: ``add_named_data`` refuses an alignment that is not a power of two (the serializer's
constraint checked in the store), where every positive alignment must be accepted (3 included).
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._steps import Arguments, CheckingFirst
from ._support import alignment_stored


class NamedDataStore(CheckingFirst):
    def _check_first(self, key: object, data: object, alignment: object, tag: object) -> Arguments:
        if type(alignment) is int and alignment > 0 and alignment & (alignment - 1):
            raise ValueError(f"Alignment must be a power of 2, received {alignment}.")
        return key, data, alignment, tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return alignment_stored(impl, 3, 3)
