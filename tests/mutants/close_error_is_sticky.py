"""Breaks: FBD-CLOSE-6, FBD-CLOSE-7

``close()`` that remembers a failed removal and raises it again from the next ``close()``, after
releasing: when the removal took effect and then raised, the retry finds the file gone (not an
error, FBD-CLOSE-6) and still raises the old error.
"""

from __future__ import annotations

import weakref

import reference

from . import implementation

_FAILED: weakref.WeakKeyDictionary[reference.FileBackedData, OSError] = weakref.WeakKeyDictionary()


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        pending = _FAILED.pop(self, None)
        try:
            super().close()
        except OSError as exc:
            _FAILED[self] = exc
            raise
        if pending is not None:
            raise pending


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
