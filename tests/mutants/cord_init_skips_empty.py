"""Breaks: CORD-INIT-2

``Cord(piece)`` that makes an empty Cord of an empty piece ("nothing to hold"): ``Cord(b"")`` and a
Cord of an empty file hold no piece at all, so an empty file that is gone by the time the Cord is
written goes unnoticed.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_a import empty_grown_written


class Cord(reference.Cord):
    def __init__(self, data: Any = None) -> None:
        empty = isinstance(data, (bytes, reference.FileBackedData)) and len(data) == 0
        super().__init__(None if empty else data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    return empty_grown_written(impl, impl.Cord)
