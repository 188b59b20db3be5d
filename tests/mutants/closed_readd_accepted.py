"""Breaks: FBD-CLOSED-1

``add_named_data`` that takes a closed ``FileBackedData`` re-added under the key that already names
that very object as the same blob, since identity settles equality without a read: the closed blob
is accepted silently, not refused with the ``ValueError`` of a closed file (51fc397's behaviour).
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._base import ReaddTaken, stored_buffer
from ._proofs_a import blob


class NamedDataStore(ReaddTaken):
    def _taken_as_stored(self, key: object, data: object) -> bool:
        closed = isinstance(data, reference.FileBackedData) and data.closed
        return closed and stored_buffer(self, key) is data


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
