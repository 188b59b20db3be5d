"""Breaks: CORD-TYPE-1, CORD-APPEND-1
Profile: core
Bug: a piece of a subclass of ``bytes`` is normalised with ``bytes(piece)`` on append, so the Cord
holds a copy, not the object appended (CORD-TYPE-1: a subclass of bytes is held by identity).
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class Cord(reference.Cord):
    def append(self, data: object) -> None:
        if isinstance(data, bytes) and type(data) is not bytes:
            data = bytes(data)  # "normalised" to a plain bytes: a copy
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


class Tagged(bytes):
    """A subclass of bytes, as serializers use to carry a name with a blob."""


class _Recorder:
    def __init__(self) -> None:
        self.writes: list[object] = []

    def write(self, data: bytes | memoryview) -> int:
        self.writes.append(data)
        return len(data)


def scenario(impl: Implementation) -> str | None:
    piece = Tagged(b"weights")
    cord = impl.Cord()
    cord.append(piece)
    sink = _Recorder()
    cord.write_to_file(sink)
    if not any(w is piece for w in sink.writes):
        return f"the bytes-subclass piece was not written by identity: got {sink.writes!r}"
    return None
