"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``FileBackedData.write_to_file`` whose ``io.BytesIO`` fast path grows the buffer from its end, not
from its current position: right when the position is at the end (as after ``BytesIO()`` and
writes), wrong when the caller seeked back to fill in a segment.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._base import written_at_the_end
from ._proofs_a import blob, written_over

IMPLEMENTATION = implementation(
    __name__, FileBackedData=written_at_the_end(reference.FileBackedData)
)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        got = written_over(blob(impl, tmp, "w", b"abc"))
        if got != b"01abc56789":
            return f"a blob b'abc' written at position 2 of b'0123456789' gave {got!r}"
        return None
