"""Breaks: FBD-INTR-3

``move_from`` whose deferral of signals puts the saved handlers back at its end, whatever a
deferred signal's handler installed meanwhile, and hands a later deferred signal to the saved
handler, as the reference once did: "a second Ctrl-C forces quit" stops working when the first
Ctrl-C lands inside ``move_from``.
"""

from __future__ import annotations

import reference
from reference.deferral import _Deferral, _each, _set_handler

from . import implementation


class _Restoring(_Deferral):
    def _adopt(self) -> None:
        pass  # what a handler put on a signal is never looked at

    def end(self) -> None:
        try:
            _each(self.original, _set_handler)  # the saved handlers, whatever was put since
        finally:
            self.active = False
            self.deliver()


class FileBackedData(reference.FileBackedData):
    _deferral = _Restoring


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
