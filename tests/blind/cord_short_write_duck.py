"""Breaks: CORD-WRITE-1
Profile: core
Bug: a short write of a ``bytes`` piece is retried only when the output is an ``io.RawIOBase``;
any other object whose ``write`` returns the count it took loses the rest of the piece.
"""

from __future__ import annotations

import io

import reference
from conformance.api import Implementation
from conformance.harness.sinks import ShortWriter
from reference.cord import _WHOLE_WRITERS, _write_bytes_whole
from reference.file_backed import check_writable, checked_readers, rest_of, write_all

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: object) -> None:
        check_writable(outfile)
        if not self._files and type(outfile) in _WHOLE_WRITERS:
            _write_bytes_whole(outfile, self._buffers)
            return
        with checked_readers(self._buffers) as readers:
            for piece in self._buffers:
                if not isinstance(piece, bytes):
                    reader = readers.get(id(piece))
                    if reader is None:
                        piece.write_to_file(outfile)
                    else:
                        reader.write_to(outfile)
                elif piece:
                    written = outfile.write(piece)
                    # a short write only where the output is a raw file
                    if isinstance(outfile, io.RawIOBase) and written != len(piece):
                        write_all(outfile, rest_of(outfile, memoryview(piece), written))


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    sink = ShortWriter(3)
    impl.Cord(b"hello world").write_to_file(sink)
    if bytes(sink.received) != b"hello world":
        return f"a sink taking 3 bytes a write got {bytes(sink.received)!r}, not b'hello world'"
    return None
