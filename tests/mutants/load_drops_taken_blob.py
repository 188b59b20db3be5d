"""Breaks: HOOK-LOW-5

Low-memory ``load_weights_blob`` that takes the blob over with ``move_from`` and then computes the
digest and returns, with nothing to give the file back: an interrupt between the take and the
return (or a failure there) drops the owner, whose collection deletes the only copy of the
weights. ``store_weights_blob`` likewise drops it when ``add_named_data`` refuses the blob.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import directory, read_file

from . import implementation
from ._base import LowMemory, LowMemoryBackend
from ._proofs_b import failing_read, materialized, raised


class Backend(LowMemoryBackend):
    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[hooks.CordBuffer, str]:
        if not hooks.is_low_memory_mode(compile_specs):
            return super().load_weights_blob(blob_path, compile_specs)
        data = cls.blob_class.move_from(blob_path, sha256=cls._handed_digest(blob_path))
        return data, data.sha256().hex()

    @classmethod
    def store_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec], store: hooks.NamedDataStore
    ) -> str:
        data, hexdigest = cls.load_weights_blob(blob_path, compile_specs)
        key = hexdigest + hooks.WEIGHTS_BLOB_SUFFIX
        store.add_named_data(key, data, 1, None)
        return key


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    weights = impl.low_memory
    assert weights is not None, f"{impl.name} has no low-memory weights"
    with directory() as tmp:
        path = materialized(impl, tmp, b"the only copy of the weights")
        os.utime(path, ns=(0, 0))  # changed since: the load hashes it, and that read fails
        with failing_read() as fault:
            error = raised(lambda: weights.load(path))
        gc.collect()  # an owner no one holds is released now
        there = read_file(path) if os.path.exists(path) else None
    if not fault.fired:
        raise RuntimeError("the load read nothing through open() or os.read: no fault injected")
    if there != b"the only copy of the weights":
        return f"a low-memory load that failed after the take ({error!r}) left {there!r} there"
    return None
