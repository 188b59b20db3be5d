"""Breaks: HOOK-MAT-4

Low-memory ``materialize_weights_blob`` that opens the blob's directory by its path, following
every link on it: a co-user's link as a directory of the path steers the weights into a directory
of the exporter's choosing, replacing the exporter's own earlier blob there.
"""

from __future__ import annotations

import os

from reference import hooks

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Blob(hooks._Blob):
    def open_directory(self) -> None:
        directory, self.name = os.path.split(os.path.abspath(self.path))
        self.directory = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
