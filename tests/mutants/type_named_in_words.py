"""Breaks: CORD-TYPE-1, NDS-ADD-1

A rejected piece or blob whose type the error describes in words when it has a common one (``a
string``, ``an integer``), and names any other type: the message contains ``str`` and ``int``
(inside ``string`` and ``integer``) but does not name the type.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import raised

_WORDS = {str: "a string", int: "an integer"}


def _described(value: object) -> str:
    return _WORDS.get(type(value), f"a {type(value).__name__}")


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        if not isinstance(data, (bytes, reference.FileBackedData, reference.Cord)):
            raise TypeError(
                f"a Cord holds bytes, FileBackedData or Cord; {_described(data)} is not"
            )
        super().append(data)


class NamedDataStore(Store):
    def add_named_data(
        self,
        key: str,
        data: Any,
        alignment: int | None = 1,
        external_tag: str | None = None,
        tensor_layout: object | None = None,
    ) -> None:
        if isinstance(key, str) and not isinstance(data, (bytes, reference.FileBackedData)):
            raise TypeError(f"named data must be bytes or FileBackedData, not {_described(data)}")
        super().add_named_data(key, data, alignment, external_tag, tensor_layout)


IMPLEMENTATION = implementation(__name__, Cord=Cord, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    for value in ("text", 7):
        error = raised(functools.partial(impl.Cord().append, value))
        name = type(value).__name__
        if not isinstance(error, TypeError) or not re.search(rf"\b{name}\b", str(error)):
            return f"Cord().append({value!r}) raised {error!r}, which does not name {name}"
    return None
