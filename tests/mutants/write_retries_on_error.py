"""Breaks: FBD-FAULT-1, FBD-WRITE-1

``FileBackedData.write_to_file`` that retries the whole write once when it raises an ``OSError``
("a transient error"): a fault that passes is swallowed, and the bytes written before the fault (or
by a write that took effect and then raised) are written twice.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import Sink, written_to


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        try:
            super().write_to_file(outfile)
        except OSError as exc:
            if isinstance(exc, reference.FileChangedError) or not hasattr(outfile, "write"):
                raise
            super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return written_to(impl, 3 << 20, Sink(failing=(2,)))  # the second chunk fails
