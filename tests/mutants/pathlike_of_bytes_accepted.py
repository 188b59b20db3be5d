"""Breaks: FBD-INIT-5

The constructor takes an ``os.PathLike`` whose ``__fspath__`` gives ``bytes`` by decoding it, as if
it were an ``os.PathLike[str]``.
"""

from __future__ import annotations

import os
from typing import Any

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(path, os.PathLike) and isinstance(os.fspath(path), bytes):
            path = os.fsdecode(os.fspath(path))
        super().__init__(path, *args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
