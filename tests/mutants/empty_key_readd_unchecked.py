"""Breaks: NDS-KEY-4, NDS-KEY-3

``add_named_data`` that takes a key re-added with an empty blob, where the key's buffer is empty
too, as the same blob without comparing digests: an empty file-backed blob with another supplied
digest is silently accepted, not a "Duplicate key" error.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, sha

from . import implementation
from ._base import stored_buffer
from ._proofs_a import blob


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(self, key: str, data: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(data, (bytes, reference.FileBackedData)) and len(data) == 0:
            stored = stored_buffer(self, key)
            if stored is not None and len(stored) == 0:
                return
        super().add_named_data(key, data, *args, **kwargs)


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
