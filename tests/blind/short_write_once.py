"""Breaks: FBD-WRITE-1
Profile: core
Bug: into an output that is not a file of ``open()``, a short write is retried once with the rest
and the rest's own count is not checked, so an output that takes a few bytes per call gets a
short blob.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._steps import StreamingThrough


class FileBackedData(StreamingThrough):
    def _write_chunk(self, outfile: Any, chunk: memoryview) -> None:
        written = outfile.write(chunk)
        if type(written) is int and 0 <= written < len(chunk):
            outfile.write(chunk[written:])


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    import os

    from ._support import Trickle, directory, make_file

    contents = b"0123456789"
    with directory() as d:
        blob = impl.FileBackedData(make_file(os.path.join(d, "w"), contents))
        out = Trickle()
        try:
            blob.write_to_file(out)
        finally:
            blob.close()
    if bytes(out.data) != contents:
        return f"an output taking 3 bytes a call got {bytes(out.data)!r} of {contents!r}"
    return None
