"""Breaks: NDS-ADD-6
Profile: strict
Bug: the tag is tested for truth (``if external_tag:``), so an empty tag ``""`` is taken as no
tag and the entry goes inline instead of raising ``ValueError``.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(
        self,
        key: str,
        data: reference.CordBuffer,
        alignment: int | None = 1,
        external_tag: str | None = None,
        tensor_layout: object | None = None,
    ) -> None:
        if not external_tag:
            external_tag = None
        super().add_named_data(key, data, alignment, external_tag, tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    try:
        store.add_named_data("k", b"abc", external_tag="")
    except ValueError:
        return None
    inline = "k" in store.get_named_data_store_output().pte_data
    return f"an empty tag was accepted{' (stored inline)' if inline else ''}"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
