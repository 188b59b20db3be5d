"""Breaks: FBD-WRITE-1

``FileBackedData.write_to_file`` into a plain writable (not an OS file, not ``io.BytesIO``) that
retries a short write once, not until the chunk is written: a sink that takes a few bytes per call
gets a short blob, silently.
"""

from __future__ import annotations

import errno
import io
from typing import Any

import reference
from conformance.api import Implementation
from reference.verified_reader import _os_file

from . import implementation
from ._proofs_c import Sink, written_to


def _write_retrying_once(outfile: Any, chunk: memoryview) -> None:
    written = outfile.write(chunk)
    if written == 0 and len(chunk):
        raise OSError(errno.EIO, f"the output accepted none of {len(chunk)} bytes")
    if isinstance(written, int) and written < len(chunk):
        outfile.write(chunk[written:])


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if type(outfile) is io.BytesIO or _os_file(outfile) is not None:
            super().write_to_file(outfile)
            return
        self._check_open()
        with self._open() as reader:
            reader.stream(lambda chunk: _write_retrying_once(outfile, chunk))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return written_to(impl, 100, Sink(take=3))
