"""Breaks: FBD-INIT-6

``cleanup`` checked with ``cleanup not in (True, False)``: ``1``, ``0`` and ``1.0`` compare equal to
a bool and are accepted as ownership flags.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: Any, cleanup: Any = False, sha256: Any = None) -> None:
        if cleanup not in (True, False):
            raise TypeError(f"cleanup must be bool, not {type(cleanup).__name__}: {cleanup!r}")
        super().__init__(path, bool(cleanup), sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _accepted(impl: Implementation, path: str, flag: object) -> bool:
    """Whether ``cleanup=flag`` makes a blob (closed again at once)."""
    try:
        wrapped = impl.FileBackedData(path, cleanup=flag)
    except TypeError:
        return False
    wrapped.close()
    return True


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(tmp + "/w", b"weights")
        flag = next((f for f in (1, 0, 1.0) if _accepted(impl, path, f)), None)
    return None if flag is None else f"cleanup={flag!r} was taken as an ownership flag"
