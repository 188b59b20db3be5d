"""Breaks: FBD-FORK-2

Placeholders are made by ``tempfile.mkstemp``, which takes ``tempfile._once_lock`` the first time
a process names a temporary file: a child forked while another thread of the parent is inside the
process's first ``move_from`` inherits that lock held, and its own first ``move_from`` waits for
ever. Swapped in by the first construction or move, so that only a process that uses this mutant
has it.
"""

from __future__ import annotations

import tempfile

from conformance.api import Implementation
from reference import file_backed
from tests.blind._support import child_says

from . import implementation
from ._base import SwappedIn


def _mkstemp(prefix: str, suffix: str, directory: str | None) -> tuple[int, str]:
    return tempfile.mkstemp(suffix, prefix, directory)


class FileBackedData(SwappedIn):
    @staticmethod
    def _swap_in() -> None:
        file_backed.make_placeholder = _mkstemp  # type: ignore[attr-defined]  # imported there, not exported


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_CHILD = """
import os, shutil, tempfile
from tests.mutants._proofs_c import reaped
tmp = tempfile.mkdtemp(prefix="cordspec-proof-")
try:
    path = os.path.join(tmp, "w")
    with open(path, "wb") as f:
        f.write(b"weights")
    tempfile._name_sequence = None  # as in a process that never named a temporary file
    tempfile._once_lock.acquire()  # held, as by a thread inside the process's first move_from
    pid = os.fork()
    if pid == 0:
        try:
            impl.FileBackedData.move_from(path).close()
        finally:
            os._exit(0)
    tempfile._once_lock.release()
    if reaped(pid, 0.5) is None:
        print("a child forked while tempfile's first-name lock was held hung in move_from")
    else:
        print("the forked child's move_from failed" if os.path.exists(path) else "OK")
finally:
    shutil.rmtree(tmp)
"""


def scenario(impl: Implementation) -> str | None:
    # in a child: the mutant swaps its placeholder maker into the reference's module for good
    return child_says(impl, _CHILD)
