"""Breaks: FBD-READ-3
Profile: strict
Bug: ``prefix`` checks its size with ``isinstance(size, int)``, which a ``bool`` passes:
``prefix(True)`` reads one byte instead of raising ``TypeError``.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if type(size) is bool:
            size = int(size)  # a bool is an int to isinstance
        return super().prefix(size)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"abc") as (_, blob):
        try:
            got = blob.prefix(True)
        except TypeError as exc:
            return None if "True" in str(exc) else f"the TypeError does not name True: {exc}"
        return f"prefix(True) returned {got!r} instead of raising TypeError"
