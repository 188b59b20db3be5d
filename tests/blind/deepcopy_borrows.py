"""Breaks: FBD-COPY-1
Profile: strict
Bug: ``copy.deepcopy`` of a ``FileBackedData`` gives a new, borrowing object of the same path (so
the copy never deletes the file): once the original is closed, the copy dangles.
"""

from __future__ import annotations

import copy

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    def __deepcopy__(self, memo: dict[int, object]) -> reference.FileBackedData:
        return type(self)(self._path, sha256=self._sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(tmp + "/w", b"weights"), cleanup=True)
        twin = copy.deepcopy(blob)
        blob.close()
        if twin is blob:
            return None
        try:
            twin.to_bytes()
        except ValueError:
            return None  # a closed copy says so
        except OSError as exc:
            return f"a deep copy dangles once the original is closed: {exc!r}"
        return None
