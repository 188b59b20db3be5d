"""Breaks: FBD-FORK-1
Profile: strict
Bug: the release at garbage collection checks that it runs in the owning process by comparing the
process id with ``os.getpid()`` taken when the finalizer runs, not when ownership was taken, so a
forked child that collects an inherited owner deletes its parent's file.
"""

from __future__ import annotations

import os
import weakref

from conformance.api import Implementation
from reference import file_backed
from reference.location import Identity, Location
from reference.ownership import _release

from . import implementation


def _release_here(location: Location, identity: Identity) -> None:
    _release(location, identity, os.getpid())


class FileBackedData(file_backed.FileBackedData):
    def _init(self, *args: object, **kwargs: object) -> None:
        super()._init(*args, **kwargs)  # type: ignore[arg-type]  # the reference's arguments
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, _release_here, self._location, self._identity)
            self._finalizer.atexit = False


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    from ._support import child_says

    return child_says(
        impl,
        """
        import gc, os, shutil, tempfile, warnings
        warnings.simplefilter("ignore", DeprecationWarning)
        d = tempfile.mkdtemp(prefix="cordspec-blind-")
        path = os.path.join(d, "w")
        with open(path, "wb") as f:
            f.write(b"weights")
        blob = impl.FileBackedData(path, cleanup=True)
        pid = os.fork()
        if pid == 0:
            del blob
            gc.collect()
            os._exit(0)
        os.waitpid(pid, 0)
        kept = os.path.exists(path)
        blob.close()
        shutil.rmtree(d)
        print("OK" if kept else "a forked child deleted its parent's owned file at collection")
        """,
    )
