"""Breaks: FBD-WRITE-1
Profile: core
Bug: ``write_to_file`` takes a ``write`` that returns ``None`` to have written nothing, for every
output, not only a raw one: a sink whose ``write`` returns ``None`` (a hashing or network wrapper)
gets ``BlockingIOError``.
"""

from __future__ import annotations

import errno

from conformance.api import Implementation

from . import implementation
from ._steps import StreamingThrough
from ._support import directory, make_file


class FileBackedData(StreamingThrough):
    def _write_chunk(self, outfile: object, chunk: memoryview) -> None:
        while chunk:
            written = outfile.write(chunk)
            if written is None:  # "non-blocking and full", whatever the output is
                raise BlockingIOError(errno.EAGAIN, f"{outfile!r} took none of {len(chunk)} bytes")
            if written <= 0:
                raise OSError(errno.EIO, f"{outfile!r} accepted none of {len(chunk)} bytes")
            chunk = chunk[written:]


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class Sink:
    """An output whose ``write`` takes everything and returns nothing."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes | memoryview) -> None:
        self.data += data


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(tmp + "/w", b"weights" * 1000))
        sink = Sink()
        try:
            blob.write_to_file(sink)
        except OSError as exc:
            return f"writing to a sink whose write() returns None raised {exc!r}"
        if bytes(sink.data) != b"weights" * 1000:
            return "the sink got other bytes"
        return None
