"""Breaks: CORD-APPEND-1, CORD-INIT-2

A port whose ``Cord.append`` normalises every in-memory piece with ``bytes(memoryview(data))``:
the contents are right, but each ``bytes`` piece is a copy, not the object given (file-backed
pieces are still held by identity), so a Cord of large in-memory pieces holds them twice.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import peak_memory

from . import implementation


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        if type(data) is bytes:
            data = bytes(memoryview(data))
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


_BIG = 8 << 20


def scenario(impl: Implementation) -> str | None:
    """A Cord holds a ``bytes`` piece by identity: making one of a large piece allocates
    nothing of its size."""
    big = bytes(_BIG)
    held = peak_memory(lambda: impl.Cord(big).append(big))
    if held >= _BIG // 2:
        return f"a Cord of an {_BIG >> 20} MiB bytes piece allocated {held >> 20} MiB"
    return None
