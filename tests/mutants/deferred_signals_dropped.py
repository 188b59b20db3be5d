"""Breaks: FBD-INTR-2

``move_from`` whose deferral of signals hands them on until a handler raises and drops the rest,
as the reference once did: SIGINT and SIGUSR1 during ``move_from`` ran only SIGINT's handler.
"""

from __future__ import annotations

import reference
from reference.deferral import _Deferral

from . import implementation


class _Dropping(_Deferral):
    def deliver(self) -> None:
        try:
            while self.pending:
                signum, frame = self.pending.pop(0)
                try:
                    self._hand(signum, frame)
                finally:
                    self._adopt()
        except BaseException:
            self.pending.clear()  # one signal is reported, however many came
            raise


class FileBackedData(reference.FileBackedData):
    _deferral = _Dropping


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
