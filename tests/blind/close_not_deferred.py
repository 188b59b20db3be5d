"""Breaks: FBD-INTR-1
Profile: strict
Bug: ``close()`` runs its steps without deferring signals: a SIGINT that arrives just after the
unlink raises before the object is marked closed, leaving it open without its file.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import child_says


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        self._close()  # no signal deferred


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)

_CHILD = """
import os, signal, tempfile
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "w")
with open(path, "wb") as f:
    f.write(b"weights")
blob = impl.FileBackedData(path, cleanup=True)
real = os.unlink
def unlink(*args, **kwargs):  # a SIGINT arrives right after the removal
    real(*args, **kwargs)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, None)
os.unlink = unlink
try:
    blob.close()
except KeyboardInterrupt:
    pass
os.unlink = real
gone, closed = not os.path.exists(path), bool(getattr(blob, "closed", None))
if gone != closed:
    print(f"an interrupted close() left the file {'removed' if gone else 'in place'} "
          f"and the object {'closed' if closed else 'open'}")
else:
    print("OK")
"""


def scenario(impl: Implementation) -> str | None:
    return child_says(impl, _CHILD)
