"""Breaks: CORD-TYPE-1

``Cord.append`` that adds the piece's length before it checks the piece's type: a rejected
``bytearray`` or ``str`` raises ``TypeError``, but the Cord's length has grown by it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        if isinstance(data, reference.Cord) or not hasattr(data, "__len__"):
            super().append(data)
            return
        self._byte_size += len(data)  # counted before the type is checked
        if not isinstance(data, (bytes, reference.FileBackedData)):
            raise TypeError(
                f"Cord pieces must be bytes, FileBackedData or Cord, not {type(data).__name__}"
            )
        self._byte_size -= len(data)  # the reference's append counts an accepted piece itself
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    cord = impl.Cord(b"ab")
    for rejected in (bytearray(b"xyz"), "xyz"):
        with contextlib.suppress(TypeError):
            cord.append(rejected)
    if len(cord) != 2:
        return f"a Cord of b'ab' has length {len(cord)} after two refused appends"
    return None
