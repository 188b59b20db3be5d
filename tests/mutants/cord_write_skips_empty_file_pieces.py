"""Breaks: CORD-WRITE-3

``Cord.write_to_file`` that leaves out empty file pieces ("nothing to write"), so they are never
checked: a Cord whose empty file has since grown, been replaced or been closed is written as if the
piece were still empty.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_a import empty_grown_written


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        kept = reference.Cord()
        for piece in self.pieces:
            if isinstance(piece, bytes) or len(piece):
                kept.append(piece)
        kept.write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    def after_head(piece: Any) -> Any:
        cord = impl.Cord(b"head")
        cord.append(piece)
        return cord

    return empty_grown_written(impl, after_head)
