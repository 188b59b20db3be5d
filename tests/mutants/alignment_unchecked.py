"""Breaks: NDS-ADD-3, NDS-ADD-5, NDS-ADD-8

``add_named_data`` that stores the alignment as given: zero, negative, ``None``, ``True`` or
``1.5`` are accepted, and so is an int subclass of -8 whose comparisons say it is positive.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference.named_data import _checked

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    @staticmethod
    def _check_arguments(key: object, data: object, alignment: object, external_tag: object) -> Any:
        # every check but the alignment's, which is passed on as given
        key, data, _, tag = _checked(key, data, 1, external_tag)
        return key, data, alignment, tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    for i, bad in enumerate((0, -8, True, 1.5)):
        try:
            store.add_named_data(f"k{i}", b"x", alignment=bad)
        except (TypeError, ValueError):
            continue
        return f"add_named_data took alignment {bad!r} without an error"
    return None
