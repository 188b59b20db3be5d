"""Breaks: CORD-WRITE-3

``Cord.write_to_file`` into a file opened by ``open()`` (the kernel-copy path) that writes each
piece as it reaches it, checking none before the first byte: a closed or changed later piece is
found after the pieces before it are in the file. Into ``io.BytesIO`` and other outputs it checks
them all first, as the reference does.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from reference.cord import _write_pieces
from reference.verified_reader import _os_file

from . import implementation
from ._proofs_a import spoiled_cord_written


class Cord(reference.Cord):
    def write_to_file(self, outfile: Any) -> None:
        if _os_file(outfile) is None:
            super().write_to_file(outfile)
            return
        _write_pieces(outfile, self._buffers, {})  # each file piece by its own write_to_file


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    return spoiled_cord_written(impl, into_file=True)
