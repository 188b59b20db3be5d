"""Breaks: NDS-ADD-3
Profile: core
Bug: ``add_named_data``'s alignment is typed ``int = 1`` and checked as an int, so an explicit
``alignment=None``, which must mean 1, raises ``TypeError``.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import _checked

from . import implementation


def _check_arguments(
    key: object, data: object, alignment: object, external_tag: object
) -> tuple[str, reference.CordBuffer, int, str | None]:
    if alignment is None:
        raise TypeError("alignment must be int, not NoneType: None")
    return _checked(key, data, alignment, external_tag)


class NamedDataStore(reference.NamedDataStore):
    _check_arguments = staticmethod(_check_arguments)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    try:
        store.add_named_data("k", b"abc", None)
    except TypeError as exc:
        return f"alignment=None raised {exc!r}"
    entry = store.get_named_data_store_output().pte_data["k"]
    return None if entry.alignment == 1 else f"alignment=None was stored as {entry.alignment!r}"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
