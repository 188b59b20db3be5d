"""Breaks: FBD-CLOSE-8

``close()`` that removes the owned path by name, without checking it still names the owned file:
a file put at that path since is deleted.
"""

from __future__ import annotations

import reference
from reference.file_backed import _unlink_quietly

from . import implementation


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        if not self.closed and self.owned:
            _unlink_quietly(self._path)
        super().close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
