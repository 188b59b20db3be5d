"""Breaks: FBD-CLOSE-3
Profile: core
Bug: ``__exit__`` returns True after releasing (meant as "released"), which tells Python the
exception was handled: an error raised in the ``with`` block is silently swallowed.
"""

from __future__ import annotations

import os
from types import TracebackType

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    def __exit__(  # type: ignore[override]
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        self.close()
        return True


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class _Marker(Exception):
    pass


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"abc")
        try:
            with impl.FileBackedData(path, cleanup=True):
                raise _Marker
        except _Marker:
            return None if not os.path.exists(path) else "the block's end did not release"
    return "an exception raised in the with block did not propagate"
