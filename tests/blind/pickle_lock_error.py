"""Breaks: FBD-COPY-2
Profile: strict
Bug: the port relies on its lock to make the object unpicklable and defines no ``__reduce__``:
pickling raises ``TypeError: cannot pickle '_thread.lock' object``, which does not name the path.
"""

from __future__ import annotations

import pickle

import reference
from conformance.api import Implementation

from . import implementation
from ._support import wrapped


class FileBackedData(reference.FileBackedData):
    __reduce__ = object.__reduce__  # type: ignore[assignment]  # the default pickling, stopped only by the lock


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with wrapped(impl, b"abc") as (path, blob):
        try:
            pickle.dumps(blob)
        except TypeError as exc:
            if path not in str(exc):
                return f"pickling raised a TypeError that does not name the path: {exc}"
            return None
        return "a FileBackedData was pickled"
