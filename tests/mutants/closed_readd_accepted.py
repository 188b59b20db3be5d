"""Breaks: FBD-CLOSED-1

``add_named_data`` that takes a closed ``FileBackedData`` re-added under the key that already names
that very object as the same blob, since identity settles equality without a read: the closed blob
is accepted silently, not refused with the ``ValueError`` of a closed file (51fc397's behaviour).
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._base import stored_buffer
from ._proofs_a import blob


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(self, key: str, data: Any, *args: Any, **kwargs: Any) -> None:
        closed = isinstance(data, reference.FileBackedData) and data.closed
        if closed and stored_buffer(self, key) is data:
            return
        super().add_named_data(key, data, *args, **kwargs)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        store = impl.NamedDataStore()
        added = blob(impl, tmp, "w", b"weights")
        store.add_named_data("w", added)
        added.close()
        try:
            store.add_named_data("w", added)
        except ValueError:
            return None
        return "a closed blob re-added under the key that names it was accepted"
