"""Breaks: FBD-CLOSE-7

``close()`` that removes an owned file as the reference does (the name in its directory, if it is
still the owned file), but through ``posix.unlink`` (out of reach of a hook on ``os.unlink``), and
drops the error of a failed removal: the object reads closed, the file stays,
and nothing tells the caller. Only a fault below Python (a system call failed in a child under
strace) reaches that unlink.
"""

from __future__ import annotations

import contextlib
import os
import posix

import reference
from conformance.api import Implementation
from reference import file_backed
from reference.location import identity_of

from . import implementation
from ._proofs_a import removal_failure_reported


class FileBackedData(reference.FileBackedData):
    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._owner and os.getpid() == self._pid:
                where = self._location
                # "a file that will not go is not our problem"
                with contextlib.suppress(OSError), where.opened_directory() as directory:
                    if identity_of(where.stat_in(directory)) == self._identity:
                        posix.unlink(where.name, dir_fd=directory)
            if self._finalizer is not None:
                self._finalizer.detach()
            if self._owner:
                file_backed._unregister(self._identity)
            self._closed = True


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    """The removal fails with EIO whether it is called through ``os`` or ``posix``."""
    return removal_failure_reported(impl)
