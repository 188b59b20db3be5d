"""Breaks: FBD-FORK-1

A release backstop with no process check: a child made by ``fork`` that exits, or collects the
inherited object, deletes its parent's file.
"""

from __future__ import annotations

import os
import weakref

from reference.location import Identity, Location
from reference.ownership import _release

from . import implementation
from ._base import Owners


def _release_here(location: Location, identity: Identity) -> None:
    _release(location, identity, os.getpid())  # whichever process runs it is the owner


class FileBackedData(Owners):
    def _made_owner(self) -> None:
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _release_here, self._location, self._identity)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
