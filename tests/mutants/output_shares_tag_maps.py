"""Breaks: NDS-OUT-3

``get_named_data_store_output`` that copies the buffer list and the outer maps, but hands out the
store's own map of each tag: an entry added later under an existing tag shows through.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

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


def scenario(impl: Implementation) -> str | None:
    store: Any = impl.NamedDataStore()
    store.add_named_data("a", b"first", external_tag="t")
    store.add_named_data("i", b"inline")
    output = store.get_named_data_store_output()  # its fields are read only after the changes
    other: Any = impl.NamedDataStore()
    other.add_named_data("c", b"merged", external_tag="t")
    store.add_named_data("b", b"added", external_tag="t")
    store.merge_named_data_store(other.get_named_data_store_output())
    store.externalize_pte_data(1 << 20, "s")
    seen = (
        len(output.buffers),
        list(output.pte_data),
        {t: list(m) for t, m in output.external_data.items()},
    )
    if seen != (2, ["i"], {"t": ["a"]}):
        return f"an output of 2 buffers, 'i' inline and 'a' under 't' became {seen} later"
    return None
