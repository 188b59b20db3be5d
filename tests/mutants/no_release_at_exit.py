"""Breaks: FBD-CLOSE-5

Owned files are released at ``close()`` and at garbage collection, but not at interpreter exit:
an exit hook of its own drops the owners' finalizers before the reference's exit release runs
(``atexit`` runs the last registered first), so owners alive at exit leak.
"""

from __future__ import annotations

import atexit
import weakref

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._base import Owners
from ._proofs_b import exit_leaves

_OWNERS: weakref.WeakSet[reference.FileBackedData] = weakref.WeakSet()


def _drop_finalizers() -> None:
    for owner in list(_OWNERS):
        owner._finalizer.detach()


atexit.register(_drop_finalizers)


class FileBackedData(Owners):
    def _made_owner(self) -> None:
        _OWNERS.add(self)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_OWNER_AT_EXIT = """
import os.path
with open(os.path.join(tmp, "owned"), "wb") as f:
    f.write(b"weights")
blob = impl.FileBackedData(f.name, cleanup=True)
"""


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        left, _ = exit_leaves(impl, tmp, _OWNER_AT_EXIT)
    return f"an owner alive at a normal exit left {left}" if left else None
