"""Breaks: CORD-WRITE-1, CORD-APPEND-2
Profile: core
Bug: appending a Cord carries its pieces and length but not its count of file-backed pieces, so a
Cord made from a Cord with file pieces takes the all-``bytes`` fast path when written: into an
``io.BytesIO`` its ``writelines`` gets a ``FileBackedData`` and raises.
"""

from __future__ import annotations

import io

import reference
from conformance.api import Implementation

from . import implementation
from ._support import wrapped


class Cord(reference.Cord):
    def append(self, data: object) -> None:
        if isinstance(data, reference.Cord):
            self._buffers.extend(list(data._buffers))
            self._byte_size += data._byte_size  # the file count is forgotten
            return
        super().append(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"file piece") as (_, blob):
        inner = impl.Cord(b"head ")
        inner.append(blob)
        outer = impl.Cord()
        outer.append(inner)
        out = io.BytesIO()
        try:
            outer.write_to_file(out)
        except Exception as exc:
            return f"writing a Cord appended from a Cord with a file piece raised {exc!r}"
        if out.getvalue() != b"head file piece":
            return f"it wrote {out.getvalue()!r}"
        return None
