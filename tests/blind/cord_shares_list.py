"""Breaks: CORD-INIT-3
Profile: core
Bug: ``Cord(other)`` adopts ``other``'s piece list instead of copying it (a cheap "move"), so
appending to either Cord afterwards changes the other's pieces.
"""

from __future__ import annotations

import io

import reference
from conformance.api import Implementation

from . import implementation


class Cord(reference.Cord):
    def __init__(self, data: object = None) -> None:
        if isinstance(data, reference.Cord):
            self._buffers = data._buffers  # shared, not copied
            self._byte_size = data._byte_size
            self._files = data._files
        else:
            super().__init__(data)  # the reference checks the type


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    first = impl.Cord(b"abc")
    second = impl.Cord(first)
    second.append(b"def")
    out = io.BytesIO()
    first.write_to_file(out)
    if out.getvalue() != b"abc":
        return f"appending to Cord(first) changed first: it now writes {out.getvalue()!r}"
    return None
