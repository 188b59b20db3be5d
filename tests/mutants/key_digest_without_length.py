"""Breaks: NDS-KEY-4, NDS-KEY-3

Key equality by SHA-256 alone, without the length check: re-adding a key with a blob of another
length whose supplied digest equals the stored one is accepted as equal contents.
"""

from __future__ import annotations

import os
from typing import Any

from conformance.api import Implementation
from reference.named_data import _digest
from tests.blind._support import directory, make_file, sha

from . import implementation
from ._base import Store
from ._proofs_b import refused


class NamedDataStore(Store):
    def _readd(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> Any:
        tag_now = self._tags[key]
        entries = self.pte_data if tag_now is None else self.external_data[tag_now]
        index = entries[key].buffer_index
        if _digest(data) == self._buffer_digest(index):
            data = self.buffers[index]  # equal digests: taken as the same blob, length unchecked
        return super()._readd(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights")
    with directory() as tmp:
        longer = make_file(os.path.join(tmp, "longer"), b"weights and more")
        blob = impl.FileBackedData(longer, sha256=sha(b"weights"))  # the stored blob's digest
        return refused(
            lambda: store.add_named_data("w", blob), ValueError, "'w' again, longer, same digest"
        )
