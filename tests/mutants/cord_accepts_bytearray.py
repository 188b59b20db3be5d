"""Breaks: CORD-TYPE-1

``Cord.append`` that takes a ``bytearray`` or ``memoryview`` as if it were ``bytes``.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        super().append(bytes(data) if isinstance(data, (bytearray, memoryview)) else data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    for piece in (bytearray(b"abc"), memoryview(b"abc")):
        cord = impl.Cord()
        try:
            cord.append(piece)
        except TypeError:
            continue
        return f"Cord.append took a {type(piece).__name__} piece"
    return None
