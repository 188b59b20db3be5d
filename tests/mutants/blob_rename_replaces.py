"""Breaks: HOOK-MAT-3

Low-memory ``materialize_weights_blob`` that checks the blob's name, then renames onto it with a
rename that replaces: what another user put at the name between the check and the rename is
replaced (as root, even in a sticky directory).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import directory

from . import implementation
from ._base import LowMemory, LowMemoryBackend
from ._proofs_a import materialized, patched


class Blob(hooks._Blob):
    def place(self, earlier: tuple[int, int] | None) -> None:
        os.replace(self.temporary, self.name, src_dir_fd=self.directory, dst_dir_fd=self.directory)
        self.temporary = ""


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    """Another user's link appears at the blob's name just after the last look at it finds it
    free: the rename into place must not replace it."""
    with directory() as tmp:
        name = "m.wrapper_weights.blob"
        blob_path = os.path.join(tmp, name)
        real = os.stat
        looks = []

        def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return real(path, *args, **kwargs)
            except FileNotFoundError:
                looks.append(path)
                if looks.count(name) == 2:  # the look just before the rename
                    os.symlink("/nonexistent", blob_path)
                raise

        with patched(os, "stat", stat), contextlib.suppress(FileExistsError):
            materialized(impl, tmp, [b"weights"])
        if not os.path.islink(blob_path):
            return "the blob's rename replaced a link put at its name after its check"
        return None
