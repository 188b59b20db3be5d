"""Breaks: NDS-OUT-3

``get_named_data_store_output`` that copies the buffer list and the outer maps, but hands out the
store's own map of each tag: an entry added later under an existing tag shows through.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def get_named_data_store_output(self) -> Any:
        return reference.NamedDataStoreOutput(
            list(self.buffers),
            dict(self.pte_data),
            {tag: entries for tag, entries in self.external_data.items() if entries},
        )


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
