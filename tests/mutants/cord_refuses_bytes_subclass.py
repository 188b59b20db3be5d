"""Breaks: CORD-TYPE-1, CORD-APPEND-1

``Cord.append`` that takes exactly ``bytes`` (``type(data) is bytes``): a subclass of ``bytes``,
which is ``bytes`` to the spec, is refused with a ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        if isinstance(data, bytes) and type(data) is not bytes:
            raise TypeError(f"Cord pieces must be bytes, not {type(data).__name__}")
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


class _Named(bytes):
    """A ``bytes`` subclass, which is ``bytes`` to the spec."""


def scenario(impl: Implementation) -> str | None:
    cord = impl.Cord()
    try:
        cord.append(_Named(b"abc"))
    except TypeError as exc:
        return f"Cord.append refused a bytes subclass: {exc}"
    if bytes(cord) != b"abc":
        return f"a Cord of a bytes subclass piece b'abc' gives {bytes(cord)!r}"
    return None
