"""Breaks: NDS-OUT-2
Profile: core
Bug: the output's buffers are normalised with ``bytes(b)`` ("plain bytes for the serializer"):
the same object for exact ``bytes``, but a copy for a subclass of ``bytes``, so the output no
longer holds the stored object.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def get_named_data_store_output(self) -> reference.NamedDataStoreOutput:
        out = super().get_named_data_store_output()
        return reference.NamedDataStoreOutput(
            [bytes(b) if isinstance(b, bytes) else b for b in out.buffers],
            out.pte_data,
            out.external_data,
        )


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class Blob(bytes):
    """Weights as a subclass of bytes (as a framework's buffer type may be)."""


def scenario(impl: Implementation) -> str | None:
    data = Blob(b"weights")
    store = impl.NamedDataStore()
    store.add_named_data("k", data)
    buffer = store.get_named_data_store_output().buffers[0]
    if buffer is not data:
        return f"the output holds a {type(buffer).__name__} copy, not the stored object"
    return None
