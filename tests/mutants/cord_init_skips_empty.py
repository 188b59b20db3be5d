"""Breaks: CORD-INIT-2

``Cord(piece)`` that tests its argument for truth (``if data:``) rather than against ``None``:
``Cord(b"")`` and a Cord of an empty file hold no piece at all.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class Cord(reference.Cord):
    def __init__(self, data: Any = None) -> None:
        super().__init__(data if data else None)


IMPLEMENTATION = implementation(__name__, Cord=Cord)
