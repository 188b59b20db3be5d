"""Breaks: FBD-EXIT-3

The release at exit takes one snapshot of the owners and accepts new ones meanwhile: an owner a
daemon thread makes while the release runs is never released. The release is swapped in by the
first construction or move, so that only a process that uses this mutant has it.
"""

from __future__ import annotations

import atexit
import contextlib

from conformance.api import Implementation
from reference import deferral, ownership
from tests.blind._support import directory

from . import implementation
from ._base import SwappedIn
from ._proofs_b import exit_leaves


def _one_snapshot() -> None:
    previous: deferral._Handlers = {}
    with contextlib.suppress(BaseException):
        previous = deferral._python_handlers()
        deferral._replace(previous, ownership._ignore)
    try:
        for identity, ref in list(ownership._owners.items()):  # taken once, refusing nothing
            ownership._release_entry(identity, ref)
    finally:
        deferral._restore(previous)


class FileBackedData(SwappedIn):
    @staticmethod
    def _swap_in() -> None:
        atexit.unregister(ownership._release_all_at_exit)
        atexit.unregister(_one_snapshot)
        atexit.register(_one_snapshot)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_LATE_OWNER = """
import os

def weights(name):
    with open(os.path.join(tmp, name), "wb") as f:
        f.write(b"weights")
    return f.name

first = impl.FileBackedData(weights("first"), cleanup=True)
late, owners, real = weights("late"), [], os.unlink

def unlink(*args, **kwargs):  # an owner is made while the release at exit runs
    os.unlink = real
    try:
        owners.append(impl.FileBackedData(late, cleanup=True))
        print("owned")
    except Exception as exc:
        print("refused:", exc)
    return real(*args, **kwargs)

os.unlink = unlink
"""


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        left, said = exit_leaves(impl, tmp, _LATE_OWNER)
    if said == "owned" and "late" in left:
        return "an owner made while the release at exit ran was accepted and never released"
    if not said:
        raise RuntimeError("the release at exit removed no file: nothing was made during it")
    return None
