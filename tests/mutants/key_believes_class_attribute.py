"""Breaks: NDS-ADD-9

``add_named_data`` that tells a key's type by ``isinstance``, which believes an object's
``__class__`` attribute: an object that says it is a ``str`` is taken for one, and normalising it
(``str.__str__``) fails with a ``TypeError`` that does not name it.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference import named_data

from . import implementation
from ._base import Store
from ._proofs_b import key_refused


def _believing(key: object, data: object, alignment: object, external_tag: object) -> Any:
    if isinstance(key, str) and not issubclass(type(key), str):
        key = str.__str__(key)
    return named_data._checked(key, data, alignment, external_tag)


class NamedDataStore(Store):
    _check_arguments = staticmethod(_believing)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class _SaysStr:
    """Not a str, whose ``__class__`` says it is one."""

    @property  # type: ignore[misc]  # the lie under test: isinstance believes it
    def __class__(self) -> type:
        return str


def scenario(impl: Implementation) -> str | None:
    return key_refused(impl, _SaysStr(), "a key whose __class__ says str", "key")
