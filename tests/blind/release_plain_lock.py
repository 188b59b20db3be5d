"""Breaks: FBD-CLOSE-4
Profile: core
Bug: the port guards its owner bookkeeping with a plain ``threading.Lock`` and its finalizer takes
the same lock: when the cyclic collector runs a finalizer inside a region holding it (any
allocation can start the collector), the thread deadlocks.
"""

from __future__ import annotations

import threading
import weakref

import reference
from conformance.api import Implementation
from reference.ownership import _release

from . import implementation
from ._support import child_says

_lock = threading.Lock()


def _locked_release(*args: object) -> None:
    with _lock:
        _release(*args)


class FileBackedData(reference.FileBackedData):
    def _init(self, path: str, st: object, digest: object, owner: bool, location: object) -> None:
        with _lock:
            super()._init(path, st, digest, owner, location)
            if self._finalizer is not None:
                _, _, args, _ = self._finalizer.detach()
                self._finalizer = weakref.finalize(self, _locked_release, *args)
                self._finalizer.atexit = False


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)

_CHILD = """
import gc, os, sys, tempfile, threading
import reference, tests.blind
roots = tuple(os.path.dirname(m.__file__) for m in (reference, tests.blind))


def attempt(k):
    tmp = tempfile.mkdtemp()
    paths = []
    for name in ("garbage", "new"):
        paths.append(os.path.join(tmp, name))
        with open(paths[-1], "wb") as f:
            f.write(b"weights")
    gc.disable()
    garbage = impl.FileBackedData(paths[0], cleanup=True)
    garbage.cycle = garbage  # freed only by the cyclic collector
    del garbage
    count = [0]

    def tracer(frame, event, arg):  # the collector runs at the k-th line of the constructor
        if event == "call":
            return tracer if frame.f_code.co_filename.startswith(roots) else None
        if event == "line":
            count[0] += 1
            if count[0] == k:
                gc.collect()
        return tracer

    sys.settrace(tracer)
    try:
        blob = impl.FileBackedData(paths[1], cleanup=True)
    finally:
        sys.settrace(None)
        gc.enable()
    gc.collect()
    blob.close()
    left = os.listdir(tmp)
    os.rmdir(tmp) if not left else None
    return count[0], left


lines, _ = attempt(0)  # no collection: how many lines the constructor runs
for k in range(1, lines + 1):
    def stuck(k=k):
        print(f"a collection at line {k} deadlocked")
        os._exit(0)

    watchdog = threading.Timer(5, stuck)
    watchdog.start()
    _, left = attempt(k)
    watchdog.cancel()
    if left:
        print(f"a collection at line {k} of the constructor left {left}")
        break
else:
    print("OK")
"""


def scenario(impl: Implementation) -> str | None:
    return child_says(impl, _CHILD, timeout=60)
