"""Breaks: FBD-CLOSE-5

Owned files are released at ``close()`` and at garbage collection, but not at interpreter exit:
an exit hook of its own drops the owners' finalizers before the reference's exit release runs
(``atexit`` runs the last registered first), so owners alive at exit leak.
"""

from __future__ import annotations

import atexit
import os
import weakref

import reference

from . import implementation

_OWNERS: weakref.WeakSet[reference.FileBackedData] = weakref.WeakSet()


def _drop_finalizers() -> None:
    for owner in list(_OWNERS):
        owner._finalizer.detach()


atexit.register(_drop_finalizers)


class FileBackedData(reference.FileBackedData):
    def _init(
        self, path: str, st: os.stat_result, digest: bytes | None, owner: bool, fd: int = -1
    ) -> None:
        super()._init(path, st, digest, owner, fd=fd)
        if owner:
            _OWNERS.add(self)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
