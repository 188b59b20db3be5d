"""Breaks: CORD-WRITE-1

``Cord.write_to_file`` that appends to an ``io.BytesIO`` at its end, not at its position (a fast
path that builds on ``getvalue()``): right after ``BytesIO()`` and writes, wrong when the caller
seeked back to fill in a segment. ``FileBackedData.write_to_file`` itself is right.
"""

from __future__ import annotations

import reference

from . import implementation
from ._base import written_at_the_end

IMPLEMENTATION = implementation(__name__, Cord=written_at_the_end(reference.Cord))
