"""Breaks: NDS-ADD-8

A key or tag of a ``str`` subclass normalised with ``str(value)``, which calls the subclass's own
``__str__``: a key that says it is something else is stored under what it says.
"""

from __future__ import annotations

from typing import Any

from reference import named_data

from . import implementation
from ._base import Store


def _by_str(key: object, data: object, alignment: object, external_tag: object) -> Any:
    _, data, alignment, _ = named_data._checked(key, data, alignment, external_tag)
    return str(key), data, alignment, None if external_tag is None else str(external_tag)


class NamedDataStore(Store):
    _check_arguments = staticmethod(_by_str)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
