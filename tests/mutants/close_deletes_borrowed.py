"""Breaks: FBD-INIT-2

``close()`` that deletes the file whether or not the object owns it: a ``cleanup=False`` wrapper
deletes the caller's file.
"""

from __future__ import annotations

import reference
from reference.ownership import _remove_if_same

from . import implementation


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        if not self.closed and not self.owned:
            _remove_if_same(self._location, self._identity)
        super().close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
