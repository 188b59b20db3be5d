"""Breaks: NDS-ADD-8
Profile: strict
Bug: once an alignment passes the int check, the store keeps the object it was given, so an
``IntEnum`` (or any subclass of ``int``) alignment reaches the entry and the output as itself.
"""

from __future__ import annotations

import enum

from conformance.api import Implementation
from reference import named_data

from . import implementation


def _keep_given_alignment(
    key: object, data: object, alignment: object, external_tag: object
) -> tuple[str, named_data.CordBuffer, int, str | None]:
    text, blob, checked, tag = named_data._checked(key, data, alignment, external_tag)
    if isinstance(alignment, int):
        checked = alignment  # validated, so the value as given is stored
    return text, blob, checked, tag


class NamedDataStore(named_data.NamedDataStore):
    _check_arguments = staticmethod(_keep_given_alignment)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class _Align(enum.IntEnum):
    PAGE = 16


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights", alignment=_Align.PAGE)
    alignment = store.get_named_data_store_output().pte_data["w"].alignment
    if type(alignment) is not int or alignment != 16:
        return f"an IntEnum alignment is stored as {alignment!r} ({type(alignment).__name__})"
    return None
