"""Breaks: FBD-FAULT-3
Profile: strict
Bug: ``write_to_file`` into an output that is not a file of ``open()`` loops ``while view:
view = view[out.write(view):]``, so an output whose ``write`` keeps returning 0 is retried for ever
instead of raising an ``OSError``.
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
            view = chunk
            while view:
                written = outfile.write(view)
                taken = written if type(written) is int and written <= len(view) else len(view)
                view = view[taken:]

        self._stream(sink)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)

_PATIENCE = 1000


class _Stuck:
    """An output that takes nothing, and gives up after ``_PATIENCE`` calls to end the loop."""

    def __init__(self) -> None:
        self.calls = 0

    def write(self, data: object) -> int:
        self.calls += 1
        if self.calls > _PATIENCE:
            raise RuntimeError("still retrying")
        return 0


def scenario(impl: Implementation) -> str | None:
    import os

    from ._support import directory, make_file

    with directory() as d:
        blob = impl.FileBackedData(make_file(os.path.join(d, "w"), b"abc"))
        out = _Stuck()
        try:
            blob.write_to_file(out)
        except OSError:
            return None
        except RuntimeError:
            return f"write_to_file retried a write that took nothing {_PATIENCE} times"
        finally:
            blob.close()
    return "write_to_file returned normally into an output that took nothing"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
