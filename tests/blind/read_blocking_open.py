"""Breaks: FBD-READ-4
Profile: strict
Bug: the file is opened without ``O_NONBLOCK`` (still with ``O_NOFOLLOW``, then checked with
``fstat``): when a FIFO is put at the file's name, ``prefix``/``sha256``/``to_bytes`` block in
``open`` until a writer comes, instead of raising at once.
"""

from __future__ import annotations

import os
import threading

from conformance.api import Implementation

from . import implementation
from ._steps import OpeningWith
from ._support import wrapped


class FileBackedData(OpeningWith):
    open_flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC  # no O_NONBLOCK


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"weights") as (path, blob):
        os.unlink(path)
        os.mkfifo(path)
        outcome: list[object] = []

        def read() -> None:
            try:
                outcome.append(blob.prefix(4))
            except BaseException as exc:
                outcome.append(exc)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(2)
        if reader.is_alive():
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # lets the blocked open return
            os.close(fd)
            reader.join(5)
            return "prefix() of a blob whose file was replaced by a FIFO blocked in open"
        if not isinstance(outcome[0], OSError):
            return f"prefix() of a blob replaced by a FIFO gave {outcome[0]!r}"
        return None
