"""Breaks: FBD-CLOSE-5

Owned files are released at ``close()`` and at garbage collection, but not at interpreter exit:
an exit hook of its own drops the owners' finalizers before the reference's exit release runs
(``atexit`` runs the last registered first), so owners alive at exit leak.
"""

from __future__ import annotations

import atexit
import weakref

import reference

from . import implementation
from ._base import Owners

_OWNERS: weakref.WeakSet[reference.FileBackedData] = weakref.WeakSet()


def _drop_finalizers() -> None:
    for owner in list(_OWNERS):
        owner._finalizer.detach()


atexit.register(_drop_finalizers)


class FileBackedData(Owners):
    def _made_owner(self) -> None:
        _OWNERS.add(self)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
