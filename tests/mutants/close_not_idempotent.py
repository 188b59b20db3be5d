"""Breaks: FBD-CLOSE-2

A second ``close()`` of an owner removes its path again, and raises because it is gone.
"""

from __future__ import annotations

import os

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        if self.closed and self.owned:
            os.remove(self._path)
        super().close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
