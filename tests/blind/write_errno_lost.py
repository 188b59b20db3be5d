"""Breaks: FBD-FAULT-1
Profile: core
Bug: an ``OSError`` from the output's ``write`` is re-raised as a new ``OSError`` whose message
names the blob, dropping its ``errno`` (a full disk no longer reads ``ENOSPC``).
"""

from __future__ import annotations

import errno
import io

import reference
from conformance.api import Implementation
from reference.file_backed import check_writable, write_all
from reference.verified_reader import _os_file

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: object) -> None:
        check_writable(outfile)
        self._check_open()
        with self._open() as reader:
            if _os_file(outfile) is not None or type(outfile) is io.BytesIO:
                reader.write_to(outfile)
                return

            def sink(chunk: memoryview) -> None:
                try:
                    write_all(outfile, chunk)
                except OSError as exc:
                    raise OSError(f"writing {self._path!r} failed: {exc}") from exc

            reader.stream(sink)


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


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
