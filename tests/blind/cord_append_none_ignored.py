"""Breaks: CORD-TYPE-1
Profile: core
Bug: ``append(None)`` is treated like ``Cord(None)``, as nothing to append, and returns silently
instead of raising ``TypeError``.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import cord

from . import implementation


class Cord(cord.Cord):
    def append(self, data: cord.CordBuffer | cord.Cord) -> None:
        if data is None:
            return
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    import re

    piece = impl.Cord(b"a")
    try:
        piece.append(None)
    except TypeError as exc:
        if not re.search(r"(?<![A-Za-z0-9_])NoneType(?![A-Za-z0-9_])", str(exc)):
            return f"the TypeError does not name NoneType: {exc}"
        return None if len(piece) == 1 else "a refused append changed the Cord"
    return "Cord.append(None) returned without an error"
