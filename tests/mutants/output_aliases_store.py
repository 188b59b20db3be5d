"""Breaks: NDS-OUT-3

``get_named_data_store_output`` that hands out the store's own list and dicts, as ExecuTorch
1.5.1 does: later additions show through an output taken earlier.
"""

from __future__ import annotations

import reference

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def get_named_data_store_output(self) -> reference.NamedDataStoreOutput:
        return reference.NamedDataStoreOutput(self.buffers, self.pte_data, self.external_data)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
