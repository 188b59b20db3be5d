"""Breaks: NDS-ADD-8

A key or tag of a ``str`` subclass normalised with ``str(value)``, which calls the subclass's own
``__str__``: a key that says it is something else is stored under what it says.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference import named_data

from . import implementation
from ._base import Store


def _by_str(key: object, data: object, alignment: object, external_tag: object) -> Any:
    _, data, alignment, _ = named_data._checked(key, data, alignment, external_tag)
    return str(key), data, alignment, None if external_tag is None else str(external_tag)


class NamedDataStore(Store):
    _check_arguments = staticmethod(_by_str)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class _Says(str):
    """A key whose own ``__str__`` names another."""

    def __str__(self) -> str:
        return "what it says"


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data(_Says("weights"), b"weights")
    keys = sorted(store.key_to_buffer_idx)
    return None if keys == ["weights"] else f"the str subclass key 'weights' is stored as {keys}"
