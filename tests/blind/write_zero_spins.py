"""Breaks: FBD-FAULT-3
Profile: strict
Bug: ``write_to_file`` into an output that is not a file of ``open()`` loops ``while view:
view = view[out.write(view):]``, so an output whose ``write`` keeps returning 0 is retried for ever
instead of raising an ``OSError``.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._steps import StreamingThrough


class FileBackedData(StreamingThrough):
    def _write_chunk(self, outfile: Any, chunk: memoryview) -> None:
        view = chunk
        while view:
            written = outfile.write(view)
            taken = written if type(written) is int and written <= len(view) else len(view)
            view = view[taken:]


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
