"""Breaks: NDS-ADD-3
Profile: core
Bug: the alignment check is ``alignment < 0``, so an alignment of exactly 0 passes and is stored.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


def _zero_passes(
    key: object, data: object, alignment: object, external_tag: object
) -> tuple[str, named_data.CordBuffer, int, str | None]:
    if type(alignment) is int and alignment == 0:
        text, blob, _, tag = named_data._checked(key, data, 1, external_tag)
        return text, blob, 0, tag
    return named_data._checked(key, data, alignment, external_tag)


class NamedDataStore(named_data.NamedDataStore):
    _check_arguments = staticmethod(_zero_passes)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    try:
        store.add_named_data("w", b"x", alignment=0)
    except ValueError as exc:
        if str(exc) != "Alignment must be greater than 0, received 0.":
            return f"alignment 0 raised {str(exc)!r}"
        return None
    return "alignment 0 was accepted"
