"""Breaks: CORD-TYPE-2
Profile: strict
Bug: ``append`` tells a ``bytes`` piece with ``isinstance`` alone, which believes an object's own
``__class__``: an object that only claims to be ``bytes`` (and has a length) is taken as a piece.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import append_refused


class Cord(reference.Cord):
    def append(self, data: object) -> None:
        if isinstance(data, bytes) and type(data) is not bytes:  # the subclass test dropped
            self._buffers.append(data)
            self._byte_size += len(data)
            return
        super().append(data)  # type: ignore[arg-type]


IMPLEMENTATION = implementation(__name__, Cord=Cord)


class Claims:
    """Not bytes, but says so through ``__class__``."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return bytes

    def __len__(self) -> int:
        return 3


def scenario(impl: Implementation) -> str | None:
    return append_refused(impl, Claims(), "Claims")  # its __class__ says bytes
