"""Breaks: NDS-OUT-3
Profile: strict
Bug: an output copies the buffer list, ``pte_data`` and the ``external_data`` dict, but not the
tag maps inside it: a later add under an existing tag shows through every earlier output.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import NamedDataStoreOutput

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def get_named_data_store_output(self) -> NamedDataStoreOutput:
        return NamedDataStoreOutput(
            list(self.buffers),
            dict(self.pte_data),
            {tag: entries for tag, entries in self.external_data.items() if entries},
        )


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"first", external_tag="model")
    out = store.get_named_data_store_output()
    store.add_named_data("b", b"second", external_tag="model")
    keys = sorted(out.external_data["model"])
    if keys != ["a"]:
        return f"an output taken before adding 'b' under 'model' now lists {keys} there"
    return None
