"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` that appends to an ``io.BytesIO`` at its end, not at its position (a fast
path that builds on ``getvalue()``): right after ``BytesIO()`` and writes, wrong when the caller
seeked back to fill in a segment. ``FileBackedData.write_to_file`` itself is right.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._base import written_at_the_end
from ._proofs_a import written_over

IMPLEMENTATION = implementation(__name__, Cord=written_at_the_end(reference.Cord))


def scenario(impl: Implementation) -> str | None:
    got = written_over(impl.Cord(b"abc"))
    if got != b"01abc56789":
        return f"a Cord b'abc' written at position 2 of b'0123456789' gave {got!r}"
    return None
