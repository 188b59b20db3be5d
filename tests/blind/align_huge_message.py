"""Breaks: NDS-ADD-9
Profile: strict
Bug: NDS-ADD-3's message formats the alignment with ``str()``, so an alignment of ``-10**5000``
raises Python's "Exceeds the limit (4300 digits)" ``ValueError`` instead of the promised message.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._steps import Arguments, CheckingFirst


class NamedDataStore(CheckingFirst):
    def _check_first(self, key: object, data: object, alignment: object, tag: object) -> Arguments:
        if type(alignment) is int and alignment <= 0:
            raise ValueError(f"Alignment must be greater than 0, received {alignment}.")
        return key, data, alignment, tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    try:
        store.add_named_data("k", b"abc", -(10**5000))
    except ValueError as exc:
        message = str(exc)
        if not message.startswith("Alignment must be greater than 0, received "):
            return f"an alignment of -10**5000 raised {message[:80]!r}"
        return None
    return "an alignment of -10**5000 was accepted"
