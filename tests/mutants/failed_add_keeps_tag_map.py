"""Breaks: NDS-ATOMIC-1

``add_named_data`` that makes the map of a new tag before it fingerprints the blob: an add that
then fails (a closed or changed file) leaves an empty map for that tag, which fixes the tag's place
in the store's order.
"""

from __future__ import annotations

import os
from typing import Any

from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._base import Store
from ._proofs_b import raised


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        if tag is not None and key not in self._tags:
            self.external_data.setdefault(tag, {})
        super()._add(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    with directory() as tmp:
        closed = impl.FileBackedData(make_file(os.path.join(tmp, "w"), b"weights"))
        closed.close()
        error = raised(lambda: store.add_named_data("late", closed, 1, "second"))
    store.add_named_data("early", b"x", 1, "first")
    store.add_named_data("late", b"y", 1, "second")
    tags = list(store.get_named_data_store_output().external_data)
    if error is None or tags != ["first", "second"]:
        return f"after a failed add under 'second' ({error!r}), the tags stand as {tags}"
    return None
