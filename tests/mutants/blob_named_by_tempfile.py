"""Breaks: HOOK-MAT-5

Low-memory ``materialize_weights_blob`` that makes its temporary with ``tempfile.mkstemp``: the
first ``mkstemp`` of a process takes ``tempfile._once_lock``, and a child forked while another
thread holds it waits for ever in its first materialize.
"""

from __future__ import annotations

import os
import tempfile

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import directory

from . import implementation
from ._base import LowMemory, LowMemoryBackend
from ._proofs_a import materialized, patched


class Blob(hooks._Blob):
    def create(self) -> None:
        where = f"/proc/self/fd/{self.directory}"
        self.fd, path = tempfile.mkstemp(prefix=f".{self.name}.", suffix=".tmp", dir=where)
        self.temporary = os.path.basename(path)


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


class _TakenLock:
    """Stands in for ``tempfile``'s first-name lock: taking it is the violation."""

    def acquire(self, *args: object) -> bool:
        raise RuntimeError("tempfile's process-wide first-name lock was taken")

    def release(self) -> None:
        pass


def scenario(impl: Implementation) -> str | None:
    """A materialize in a fresh process (no temporary name drawn yet) takes no lock a child forked
    while another thread held it would wait on for ever: ``tempfile``'s is one."""
    with (
        directory() as tmp,
        patched(tempfile, "_name_sequence", None),
        patched(tempfile, "_once_lock", _TakenLock()),
    ):
        try:
            materialized(impl, tmp, [b"weights"])
        except RuntimeError as exc:
            return f"materialize took a lock a forked child can inherit held: {exc}"
        return None
