"""Breaks: FBD-FAULT-1
Profile: core
Bug: an ``OSError`` from the output's ``write`` is re-raised as a new ``OSError`` whose message
names the blob, dropping its ``errno`` (a full disk no longer reads ``ENOSPC``).
"""

from __future__ import annotations

import errno

from conformance.api import Implementation
from reference.file_backed import write_all

from . import implementation
from ._steps import StreamingThrough
from ._support import directory, make_file


class FileBackedData(StreamingThrough):
    def _write_chunk(self, outfile: object, chunk: memoryview) -> None:
        try:
            write_all(outfile, chunk)
        except OSError as exc:
            raise OSError(f"writing {self._path!r} failed: {exc}") from exc


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class FullDisk:
    def write(self, data: bytes | memoryview) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(tmp + "/w", b"weights"))
        try:
            blob.write_to_file(FullDisk())
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                return f"an ENOSPC from the output came back as {exc!r} (errno {exc.errno})"
            return None
        return "an output raising ENOSPC did not fail the write"
