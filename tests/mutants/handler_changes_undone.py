"""Breaks: FBD-INTR-3

``move_from`` whose deferral of signals puts the saved handlers back at its end, whatever a
deferred signal's handler installed meanwhile, and hands a later deferred signal to the saved
handler, as the reference once did: "a second Ctrl-C forces quit" stops working when the first
Ctrl-C lands inside ``move_from``.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.deferral import _Deferral, _each, _set_handler
from tests.blind._support import child_says, directory

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


_CTRL_C_TWICE = """
import os, signal

def graceful(signum, frame):  # the first Ctrl-C asks for a stop, and arms the second
    signal.signal(signal.SIGINT, forced)

def forced(signum, frame):
    raise SystemExit("forced")

signal.signal(signal.SIGINT, graceful)
path = os.path.join(tmp, "weights")
with open(path, "wb") as f:
    f.write(b"weights")
real = os.replace

def replace(*args, **kwargs):  # the first Ctrl-C comes as the file is renamed
    real(*args, **kwargs)
    signal.raise_signal(signal.SIGINT)

os.replace = replace
blob = impl.FileBackedData.move_from(path)
os.replace = real
now = signal.getsignal(signal.SIGINT)
blob.close()
print("OK" if now is forced else f"a SIGINT handler that installed another inside move_from "
      f"finds {getattr(now, '__name__', now)} installed after it")
"""


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        return child_says(impl, f"tmp = {tmp!r}\n{_CTRL_C_TWICE}")
