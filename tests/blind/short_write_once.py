"""Breaks: FBD-WRITE-1
Profile: core
Bug: into an output that is not a file of ``open()``, a short write is retried once with the rest
and the rest's own count is not checked, so an output that takes a few bytes per call gets a
short blob.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from conformance.harness.sinks import ShortWriter

from . import implementation
from ._steps import StreamingThrough
from ._support import wrapped


class FileBackedData(StreamingThrough):
    def _write_chunk(self, outfile: Any, chunk: memoryview) -> None:
        written = outfile.write(chunk)
        if type(written) is int and 0 <= written < len(chunk):
            outfile.write(chunk[written:])


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    contents = b"0123456789"
    out = ShortWriter(3)
    with wrapped(impl, contents) as (_, blob):
        try:
            blob.write_to_file(out)
        finally:
            blob.close()
    if bytes(out.received) != contents:
        return f"an output taking 3 bytes a call got {bytes(out.received)!r} of {contents!r}"
    return None
