"""Breaks: FBD-FORK-3

``move_from`` whose deferral of signals is not known to the fork hook, as the reference once was: a
child forked by another thread while the main thread is inside ``move_from`` inherits the deferral
as its handlers, and its own SIGTERM or SIGINT is recorded for a step the child never ends.
"""

from __future__ import annotations

import reference
from reference.deferral import _Deferral, _each, _set_handler

from . import implementation


class _Unrecorded(_Deferral):
    def begin(self) -> None:
        self.active = True
        _each(self.handlers, lambda signum, _: _set_handler(signum, self))


class FileBackedData(reference.FileBackedData):
    _deferral = _Unrecorded


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
