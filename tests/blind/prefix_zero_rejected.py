"""Breaks: FBD-READ-1, FBD-READ-3
Profile: core
Bug: ``prefix`` checks its size with ``size <= 0``, so ``prefix(0)``, the empty prefix every
length allows, raises ``ValueError`` instead of returning ``b""``.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import file_backed

from . import implementation


class FileBackedData(file_backed.FileBackedData):
    def prefix(self, size: int) -> bytes:
        if type(size) is int and size == 0:
            raise ValueError(f"size must be > 0, got {size}")
        return super().prefix(size)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    from ._support import wrapped

    with wrapped(impl, b"abc") as (_, blob):
        try:
            got = blob.prefix(0)
        except Exception as exc:
            return f"prefix(0) raised {type(exc).__name__}: {exc}"
        finally:
            blob.close()
    return None if got == b"" else f"prefix(0) returned {got!r}"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
