"""Breaks: CORD-TYPE-1

``Cord.append`` that takes a ``bytearray`` or ``memoryview`` as if it were ``bytes``.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        super().append(bytes(data) if isinstance(data, (bytearray, memoryview)) else data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)
