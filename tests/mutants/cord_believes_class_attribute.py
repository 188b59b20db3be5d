"""Breaks: CORD-TYPE-2

``Cord.append`` that tells a piece's type by ``isinstance``, which believes an object's
``__class__`` attribute: an object that says it is ``bytes`` is appended as a piece.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        if (
            isinstance(data, bytes)
            and type(data) is not bytes
            and not issubclass(type(data), bytes)
        ):
            self._byte_size += len(data)
            self._buffers.append(data)
            return
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


class _SaysBytes:
    """Not bytes, but its ``__class__`` says so (``isinstance`` believes it)."""

    @property  # type: ignore[misc]  # the lie is the point
    def __class__(self) -> type:
        return bytes

    def __len__(self) -> int:
        return 3


def scenario(impl: Implementation) -> str | None:
    cord = impl.Cord()
    try:
        cord.append(_SaysBytes())
    except TypeError:
        return None
    return "Cord.append took an object whose __class__ attribute says bytes as a piece"
