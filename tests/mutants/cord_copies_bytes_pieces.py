"""Breaks: CORD-APPEND-1, CORD-INIT-2

A port whose ``Cord.append`` normalises every in-memory piece with ``bytes(memoryview(data))``:
the contents are right, but each ``bytes`` piece is a copy, not the object given (file-backed
pieces are still held by identity), so a Cord of large in-memory pieces holds them twice.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        if type(data) is bytes:
            data = bytes(memoryview(data))
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)
