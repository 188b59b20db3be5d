"""Breaks: FBD-CLOSE-6, FBD-CLOSE-7

``close()`` that remembers a failed removal and raises it again from the next ``close()``, after
releasing: when the removal took effect and then raised, the retry finds the file gone (not an
error, FBD-CLOSE-6) and still raises the old error.
"""

from __future__ import annotations

import weakref

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._proofs_a import blob, unlink_failing

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


def scenario(impl: Implementation) -> str | None:
    """A removal that took effect and then raised: the retry finds the file gone, no error."""
    with directory() as tmp:
        owner = blob(impl, tmp, "w", b"weights", cleanup=True)
        try:
            with unlink_failing(took_effect=True):
                owner.close()
        except OSError:
            pass
        try:
            owner.close()
        except OSError as exc:
            return f"close() after the file went raised the earlier removal's error again: {exc}"
        return None
