"""Breaks: FBD-INTR-2

``move_from`` whose deferral of signals hands them on until a handler raises and drops the rest,
as the reference once did: SIGINT and SIGUSR1 during ``move_from`` ran only SIGINT's handler.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.deferral import _Deferral
from tests.blind._support import child_says

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


_CHILD = """
import os, shutil, signal, tempfile
ran = []
signal.signal(signal.SIGUSR1, lambda signum, frame: ran.append(signum))
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "w")
with open(path, "wb") as f:
    f.write(b"weights")
real = os.replace
def replace(*args, **kwargs):  # SIGINT, then SIGUSR1, come as the file is renamed
    real(*args, **kwargs)
    os.replace = real
    for signum in (signal.SIGINT, signal.SIGUSR1):
        handler = signal.getsignal(signum)
        if callable(handler):
            handler(signum, None)
os.replace = replace
try:
    impl.FileBackedData.move_from(path).close()
except KeyboardInterrupt:
    pass
finally:
    os.replace = real
    shutil.rmtree(tmp)
print("OK" if ran else "SIGINT and SIGUSR1 came during move_from; only SIGINT's handler ran")
"""


def scenario(impl: Implementation) -> str | None:
    return child_says(impl, _CHILD)
