"""Breaks: CORD-APPEND-1, CORD-WRITE-3

``Cord.append`` that skips empty pieces as an optimisation ("nothing to write"): an empty
file-backed piece is not held, so a Cord whose empty file has since grown, been replaced or
closed is written without the check of CORD-WRITE-3.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_a import empty_grown_written


class Cord(reference.Cord):
    def append(self, data: Any) -> None:
        if isinstance(data, (bytes, reference.FileBackedData)) and len(data) == 0:
            return
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    def appended(piece: Any) -> Any:
        cord = impl.Cord()
        cord.append(piece)
        return cord

    return empty_grown_written(impl, appended)
