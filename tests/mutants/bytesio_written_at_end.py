"""Breaks: FBD-WRITE-1, CORD-WRITE-1

``FileBackedData.write_to_file`` whose ``io.BytesIO`` fast path grows the buffer from its end, not
from its current position: right when the position is at the end (as after ``BytesIO()`` and
writes), wrong when the caller seeked back to fill in a segment.
"""

from __future__ import annotations

import reference

from . import implementation
from ._base import written_at_the_end

IMPLEMENTATION = implementation(
    __name__, FileBackedData=written_at_the_end(reference.FileBackedData)
)
