"""Breaks: NDS-OUT-3

``get_named_data_store_output`` that hands out the store's own list and dicts, as ExecuTorch
1.5.1 does: later additions show through an output taken earlier.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def get_named_data_store_output(self) -> reference.NamedDataStoreOutput:
        return reference.NamedDataStoreOutput(self.buffers, self.pte_data, self.external_data)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("first", b"1")
    out = store.get_named_data_store_output()
    store.add_named_data("second", b"2")
    if "second" in out.pte_data or len(out.buffers) != 1:
        return "an output taken before an add shows the key added after it"
    return None
