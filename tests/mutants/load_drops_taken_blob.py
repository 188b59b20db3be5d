"""Breaks: HOOK-LOW-5

Low-memory ``load_weights_blob`` that takes the blob over with ``move_from`` and then computes the
digest and returns, with nothing to give the file back: an interrupt between the take and the
return (or a failure there) drops the owner, whose collection deletes the only copy of the
weights. ``store_weights_blob`` likewise drops it when ``add_named_data`` refuses the blob.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference import hooks

from . import implementation
from ._base import LowMemory, LowMemoryBackend


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
