"""Breaks: FBD-INTR-1, FBD-CLOSE-5
Profile: strict
Bug: the release of owned files at exit runs with SIGINT's handler in place (each removal defers it,
then hands it on): a second Ctrl-C during the release raises out of the loop and leaves the rest of
the owned files behind.
"""

from __future__ import annotations

import atexit

import reference
from conformance.api import Implementation
from reference import ownership

from . import implementation


def _release_all() -> None:
    for ref in list(ownership._owners.values()):
        owner = ref()
        finalizer = owner._finalizer if owner is not None else None
        pending = finalizer.detach() if finalizer is not None else None
        if pending is not None:
            _, release, args, _ = pending
            release(*args)  # an interrupt raised here ends the loop


_installed = False


class FileBackedData(reference.FileBackedData):
    def _init(self, path: str, st: object, digest: object, owner: bool, location: object) -> None:
        global _installed
        if owner and not _installed:
            atexit.unregister(ownership._release_all_at_exit)
            atexit.register(_release_all)
            _installed = True
        super()._init(path, st, digest, owner, location)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)

_CHILD = """
import os, signal, tempfile
tmp = tempfile.mkdtemp()
blobs = []
for i in range(3):
    path = os.path.join(tmp, f"w{i}")
    with open(path, "wb") as f:
        f.write(b"weights")
    blobs.append(impl.FileBackedData(path, cleanup=True))
real = os.unlink
def unlink(*args, **kwargs):  # a second SIGINT arrives before each removal
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, None)
    return real(*args, **kwargs)
os.unlink = unlink
print(tmp)
"""


def scenario(impl: Implementation) -> str | None:
    import os
    import shutil

    from ._support import in_child

    done = in_child(impl, _CHILD)
    tmp = done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
    if not tmp:
        return f"the child failed: {done.stderr[-500:]}"
    left = sorted(os.listdir(tmp))
    shutil.rmtree(tmp)
    if left:
        return f"a SIGINT during the release at exit left {left}"
    return None
