"""Breaks: HOOK-LOAD-2
Profile: core
Bug: the blob is stored under a short key, the first 16 hex digits of its digest (as short
commit hashes are), ``<16 hex>_weights_blob``, not the whole hex digest the runtime looks for.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.api import Implementation
from reference import NamedDataStore, hooks

from . import implementation
from ._support import Weights, directory, make_file, sha


class Backend(hooks.AotiBackend):
    @classmethod
    def store_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec], store: NamedDataStore
    ) -> str:
        data, hexdigest = cls.load_weights_blob(blob_path, compile_specs)
        key = hexdigest[:16] + hooks.WEIGHTS_BLOB_SUFFIX
        store.add_named_data(key, data, 1, None)
        return key


IMPLEMENTATION = implementation(__name__, weights_store=Weights(Backend))


def scenario(impl: Implementation) -> str | None:
    assert impl.weights_store is not None
    with directory() as tmp:
        path = make_file(f"{tmp}/model_weights.blob", b"weights")
        store = impl.NamedDataStore()
        key = impl.weights_store.store(path, store)
    expected = sha(b"weights").hex() + "_weights_blob"
    if key != expected or expected not in store.key_to_buffer_idx:
        return f"the blob was stored under {key!r}, not {expected!r}"
    return None
