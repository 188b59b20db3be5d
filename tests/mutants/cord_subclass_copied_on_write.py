"""Breaks: CORD-TYPE-1

A piece of a subclass of ``bytes`` is held by identity, but written as ``bytes(piece)``: a copy as
large as the piece at every write, and through the subclass's own ``__bytes__`` if it has one.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        plain = reference.Cord()
        for piece in self.pieces:
            plain.append(bytes(piece) if isinstance(piece, bytes) else piece)
        reference.Cord.write_to_file(plain, outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)
