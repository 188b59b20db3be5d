"""Breaks: NDS-ADD-4
Profile: core
Bug: ``add_named_data`` refuses an alignment that is not a power of two (the serializer's
constraint checked in the store), where every positive alignment must be accepted (3 included).
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._steps import Arguments, CheckingFirst


class NamedDataStore(CheckingFirst):
    def _check_first(self, key: object, data: object, alignment: object, tag: object) -> Arguments:
        if type(alignment) is int and alignment > 0 and alignment & (alignment - 1):
            raise ValueError(f"Alignment must be a power of 2, received {alignment}.")
        return key, data, alignment, tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    try:
        store.add_named_data("k", b"abc", 3)
    except ValueError as exc:
        return f"alignment 3 was refused: {exc}"
    entry = store.get_named_data_store_output().pte_data["k"]
    return None if entry.alignment == 3 else f"alignment 3 was stored as {entry.alignment!r}"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
