"""Breaks: NDS-KEY-4, NDS-KEY-3

``add_named_data`` that takes a key re-added with an empty blob, where the key's buffer is empty
too, as the same blob without comparing digests: an empty file-backed blob with another supplied
digest is silently accepted, not a "Duplicate key" error.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from tests.blind._support import directory, sha

from . import implementation
from ._base import ReaddTaken, stored_buffer
from ._proofs_a import blob


class NamedDataStore(ReaddTaken):
    def _taken_as_stored(self, key: object, data: object) -> bool:
        if not (isinstance(data, (bytes, reference.FileBackedData)) and len(data) == 0):
            return False
        stored = stored_buffer(self, key)
        return stored is not None and len(stored) == 0


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        store = impl.NamedDataStore()
        store.add_named_data("k", b"")
        try:
            store.add_named_data("k", blob(impl, tmp, "e", b"", sha256=sha(b"not empty")))
        except ValueError:
            return None
        return "key k re-added with an empty file of another supplied digest was accepted"
