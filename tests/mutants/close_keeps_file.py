"""Breaks: FBD-CLOSE-1

``close()`` that marks the object closed but leaves the owned file on disk, for the garbage
collector's finalizer to remove some time later, if ever.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        self._closed = True


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
