"""Breaks: FBD-COPY-2

Pickling a ``FileBackedData`` gives a non-owning copy of the path instead of raising.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def __reduce__(self) -> Any:
        return (reference.FileBackedData, (self._path,))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
