"""Breaks: FBD-CLOSED-1
Profile: strict
Bug: ``Cord(blob)`` takes its one file-backed piece by its recorded size (``_size``) without
asking ``len()``, so a closed blob is accepted by the constructor, where ``append`` refuses it.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import cord
from reference.file_backed import FileBackedData

from . import implementation


class Cord(cord.Cord):
    def __init__(self, data: cord.CordBuffer | cord.Cord | None = None) -> None:
        if type(data) is FileBackedData:
            self._buffers = [data]
            self._byte_size = data._size
            self._files = 1
            return
        super().__init__(data)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    from ._support import wrapped

    with wrapped(impl, b"abc") as (_, blob):
        blob.close()
        try:
            made = impl.Cord(blob)
        except ValueError:
            return None
    return f"Cord(closed blob) was made, of length {len(made)}"
