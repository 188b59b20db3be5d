"""Breaks: FBD-COPY-1

``copy.copy`` of an owner makes a second object sharing its finalizer, as ExecuTorch 1.5.1 does:
closing or dropping either one deletes the file under the other.
"""

from __future__ import annotations

import copy
import os

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import blob_in


class FileBackedData(reference.FileBackedData):
    def __copy__(self) -> FileBackedData:
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with blob_in(impl, cleanup=True) as (_, path, owner):
        copy.copy(owner).close()
        if not owner.closed and not os.path.exists(path):
            return "closing a copy.copy of an owner deleted the file under the open original"
        return None
