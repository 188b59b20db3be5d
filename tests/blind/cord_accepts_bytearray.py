"""Breaks: CORD-TYPE-1
Profile: core
Bug: ``append`` takes any bytes-like piece, ``bytes`` or ``bytearray`` (a port that reads "bytes"
as "bytes-like"), so a mutable ``bytearray`` becomes a piece that can change after it was appended.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import append_refused


class Cord(reference.Cord):
    def append(self, data: object) -> None:
        if type(data) is bytearray:  # taken as bytes-like, by identity
            self._buffers.append(data)  # type: ignore[arg-type]
            self._byte_size += len(data)
            return
        super().append(data)  # type: ignore[arg-type]


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    return append_refused(impl, bytearray(b"cd"), "bytearray")
