"""Breaks: HOOK-MAT-6

Low-memory ``materialize_weights_blob`` whose blob write defers no signal: a raising handler that
runs between the temporary's creation and the record of its name, or inside the clean-up of a
failed write, leaves the ``.tmp`` file (and its descriptor) behind, as a write guarded only by
``try``/``except`` does.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import child_says

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Blob(hooks._Blob):
    @staticmethod
    def deferral() -> None:
        return None


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


_CHILD = """
import os, shutil, signal, tempfile
class Stop(Exception):
    pass
def stop(signum, frame):
    raise Stop()
signal.signal(signal.SIGUSR1, stop)
tmp = tempfile.mkdtemp()
real = os.open
def opened(path, flags, *args, **kwargs):  # SIGUSR1 comes just as the temporary is made
    fd = real(path, flags, *args, **kwargs)
    if isinstance(path, str) and path.endswith(".tmp"):
        handler = signal.getsignal(signal.SIGUSR1)
        if callable(handler):
            handler(signal.SIGUSR1, None)
    return fd
os.open = opened
try:
    impl.low_memory.materialize(os.path.join(tmp, "m.wrapper.so"), [b"weights"])
except Stop:
    pass
finally:
    os.open = real
left = [n for n in os.listdir(tmp) if n.endswith(".tmp")]
shutil.rmtree(tmp)
print(f"a signal whose handler raised during the blob write left {left}" if left else "OK")
"""


def scenario(impl: Implementation) -> str | None:
    return child_says(impl, _CHILD)
