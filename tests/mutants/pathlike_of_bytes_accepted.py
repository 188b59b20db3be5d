"""Breaks: FBD-INIT-5

The constructor takes an ``os.PathLike`` whose ``__fspath__`` gives ``bytes`` by decoding it, as if
it were an ``os.PathLike[str]``.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_c import raised


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(path, os.PathLike) and isinstance(os.fspath(path), bytes):
            path = os.fsdecode(os.fspath(path))
        super().__init__(path, *args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        raw = os.fsencode(make_file(os.path.join(tmp, "w"), b"weights"))
        path = type("BytesPath", (), {"__fspath__": lambda self: raw})()
        makers = (
            ("FileBackedData", impl.FileBackedData),
            ("move_from", impl.FileBackedData.move_from),
        )
        for call, make in makers:
            error = raised(functools.partial(make, path))
            if not isinstance(error, TypeError):
                return f"{call} of an os.PathLike giving bytes gave {error!r}, not TypeError"
        return None
