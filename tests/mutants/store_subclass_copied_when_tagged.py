"""Breaks: NDS-ADD-1, NDS-DEDUP-11

A blob of a subclass of ``bytes`` added with an external tag is stored as a copy of its contents
(an inline one is stored by identity): the external buffer is not the object added, and a tagged
blob that matches a stored one is copied to be compared.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(
        self,
        key: str,
        data: Any,
        alignment: Any = 1,
        external_tag: Any = None,
        tensor_layout: Any = None,
    ) -> None:
        valid = type(key) is str and type(external_tag) is str and type(alignment) is int
        if valid and isinstance(data, bytes) and type(data) is not bytes:
            data = bytes(memoryview(data))  # the contents, copied
        super().add_named_data(key, data, alignment, external_tag, tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class _Bytes(bytes):
    pass


def scenario(impl: Implementation) -> str | None:
    store: Any = impl.NamedDataStore()
    data = _Bytes(b"weights")
    store.add_named_data("k", data, external_tag="t")
    output = store.get_named_data_store_output()
    if output.buffers[output.external_data["t"]["k"].buffer_index] is not data:
        return "a subclass of bytes added under a tag is stored as another object"
    return None
