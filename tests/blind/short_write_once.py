"""Breaks: FBD-WRITE-1
Profile: core
Bug: into an output that is not a file of ``open()``, a short write is retried once with the rest
and the rest's own count is not checked, so an output that takes a few bytes per call gets a
short blob.
"""

from __future__ import annotations

import io

from conformance.api import Implementation
from reference import file_backed

from . import implementation

_READY = (io.FileIO, io.BufferedWriter, io.BufferedRandom, io.BytesIO)


class FileBackedData(file_backed.FileBackedData):
    def write_to_file(self, outfile: file_backed.Writable) -> None:
        if type(outfile) in _READY or isinstance(outfile, io.RawIOBase):
            super().write_to_file(outfile)
            return
        file_backed.check_writable(outfile)
        self._check_open()

        def sink(chunk: memoryview) -> None:
            written = outfile.write(chunk)
            if type(written) is int and 0 <= written < len(chunk):
                outfile.write(chunk[written:])

        self._stream(sink)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class _Trickle:
    """An output whose ``write`` takes at most three bytes and says how many it took."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes | memoryview) -> int:
        taken = bytes(data[:3])
        self.data += taken
        return len(taken)


def scenario(impl: Implementation) -> str | None:
    import os

    from ._support import directory, make_file

    contents = b"0123456789"
    with directory() as d:
        blob = impl.FileBackedData(make_file(os.path.join(d, "w"), contents))
        out = _Trickle()
        try:
            blob.write_to_file(out)
        finally:
            blob.close()
    if bytes(out.data) != contents:
        return f"an output taking 3 bytes a call got {bytes(out.data)!r} of {contents!r}"
    return None


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
