"""Breaks: HOOK-MAT-3

Low-memory ``materialize_weights_blob`` that checks the blob's name, then renames onto it with a
rename that replaces: what another user put at the name between the check and the rename is
replaced (as root, even in a sticky directory).
"""

from __future__ import annotations

import os

from reference import hooks

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Blob(hooks._Blob):
    def place(self, earlier: tuple[int, int] | None) -> None:
        os.replace(self.temporary, self.name, src_dir_fd=self.directory, dst_dir_fd=self.directory)
        self.temporary = ""


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
