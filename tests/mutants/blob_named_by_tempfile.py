"""Breaks: HOOK-MAT-5

Low-memory ``materialize_weights_blob`` that makes its temporary with ``tempfile.mkstemp``: the
first ``mkstemp`` of a process takes ``tempfile._once_lock``, and a child forked while another
thread holds it waits for ever in its first materialize.
"""

from __future__ import annotations

import os
import tempfile

from reference import hooks

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Blob(hooks._Blob):
    def create(self) -> None:
        where = f"/proc/self/fd/{self.directory}"
        self.fd, path = tempfile.mkstemp(prefix=f".{self.name}.", suffix=".tmp", dir=where)
        self.temporary = os.path.basename(path)


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
