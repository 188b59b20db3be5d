"""Breaks: NDS-ATOMIC-1
Profile: strict
Bug: ``add_named_data`` makes the tag's map (``setdefault``) before checking a re-added key, so a
rejected add under a new tag leaves an empty map for that tag in the store.
"""

from __future__ import annotations

import contextlib

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(
        self,
        key: str,
        data: object,
        alignment: object = 1,
        external_tag: object = None,
        tensor_layout: object = None,
    ) -> None:
        if type(external_tag) is str and external_tag:
            self.external_data.setdefault(external_tag, {})
        super().add_named_data(key, data, alignment, external_tag, tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights")
    with contextlib.suppress(ValueError):
        store.add_named_data("w", b"other weights", external_tag="new")
    external = getattr(store, "external_data", {})
    if "new" in external:
        return f"a rejected add under tag 'new' left external_data = {external!r}"
    return None


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
