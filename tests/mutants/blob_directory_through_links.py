"""Breaks: HOOK-MAT-4

Low-memory ``materialize_weights_blob`` that opens the blob's directory by its path, following
every link on it: a co-user's link as a directory of the path steers the weights into a directory
of the exporter's choosing, replacing the exporter's own earlier blob there.
"""

from __future__ import annotations

import contextlib
import os

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import directory

from . import implementation
from ._base import LowMemory, LowMemoryBackend
from ._proofs_a import materialized


class Blob(hooks._Blob):
    def open_directory(self) -> None:
        directory, self.name = os.path.split(os.path.abspath(self.path))
        self.directory = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    """A directory link of another user's (made as root, then given away) on the blob's path is
    not followed: the weights never reach the directory it leads to."""
    with directory() as tmp:
        target = os.path.join(tmp, "private")
        os.mkdir(target)
        shared = os.path.join(tmp, "shared")
        os.symlink(target, shared)
        os.lchown(shared, 65534, 65534)
        with contextlib.suppress(OSError, ValueError):
            materialized(impl, shared, [b"weights"])
        if os.listdir(target):
            return f"the weights went through another user's directory link into {target}"
        return None
