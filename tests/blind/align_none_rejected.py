"""Breaks: NDS-ADD-3
Profile: core
Bug: ``add_named_data``'s alignment is typed ``int = 1`` and checked as an int, so an explicit
``alignment=None``, which must mean 1, raises ``TypeError``.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._steps import Arguments, CheckingFirst
from ._support import alignment_stored


class NamedDataStore(CheckingFirst):
    def _check_first(self, key: object, data: object, alignment: object, tag: object) -> Arguments:
        if alignment is None:
            raise TypeError("alignment must be int, not NoneType: None")
        return key, data, alignment, tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return alignment_stored(impl, None, 1)  # None means 1
