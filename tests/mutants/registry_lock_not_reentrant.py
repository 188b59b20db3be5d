"""Breaks: FBD-CLOSE-4

The owner registry's lock is a plain ``threading.Lock``: a finalizer that the garbage collector
runs inside a region holding it (any allocation can start a collection) takes it again, and the
thread deadlocks. The lock is swapped in by the first construction or move, so that only a
process that uses this mutant has it.
"""

from __future__ import annotations

import threading

from conformance.api import Implementation
from reference import ownership
from tests.blind._support import child_says

from . import implementation
from ._base import SwappedIn

_PLAIN = type(threading.Lock())


class FileBackedData(SwappedIn):
    @staticmethod
    def _swap_in() -> None:
        if not isinstance(ownership._owners_lock, _PLAIN):  # also again in a forked child
            ownership._owners_lock = threading.Lock()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_CHILD = """
import os, shutil, sys, tempfile, threading
tmp = tempfile.mkdtemp(prefix="cordspec-proof-")
def made(name):
    with open(os.path.join(tmp, name), "wb") as f:
        f.write(b"weights")
    return os.path.join(tmp, name)
box = [impl.FileBackedData(made("first"), cleanup=True)]
collected = []
class Probe(impl.FileBackedData):
    @property
    def path(self):  # read inside the registry's locked region of a new owner
        if box:  # the collector drops the first owner here, as at any allocation
            box.clear()
            collected.append(not os.path.exists(os.path.join(tmp, "first")))
        return super().path
second = []
worker = threading.Thread(target=lambda: second.append(Probe(made("second"), cleanup=True)))
worker.daemon = True
worker.start()
worker.join(0.5)
try:
    if worker.is_alive():
        print("a release the collector ran inside the owner registry's locked region deadlocked")
    elif collected != [True] or len(second) != 1:
        print(f"the first owner's release ran: {collected}; the second owner made: {second}")
    else:
        second[0].close()
        print("OK")
finally:
    shutil.rmtree(tmp)
sys.stdout.flush()
os._exit(0)
"""


def scenario(impl: Implementation) -> str | None:
    # in a child: the mutant swaps its lock into the reference's module for good
    return child_says(impl, _CHILD)
