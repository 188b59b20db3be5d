"""Breaks: FBD-COPY-1

``copy.copy`` of an owner makes a second object sharing its finalizer, as ExecuTorch 1.5.1 does:
closing or dropping either one deletes the file under the other.
"""

from __future__ import annotations

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    def __copy__(self) -> FileBackedData:
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
