"""Breaks: NDS-DEDUP-3, NDS-DEDUP-4
Profile: core
Bug: every file-backed blob is hashed as it is added (to have its digest ready for later matches),
even when its fingerprint matches no buffer: each add reads the whole file.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file, read_cost


class NamedDataStore(reference.NamedDataStore):
    def _add(self, key: str, data: object, alignment: int, tag: str | None, layout: object) -> None:
        if isinstance(data, reference.FileBackedData):
            data.sha256()  # ready for the comparisons to come
        super()._add(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), os.urandom(4 << 20)))
        store = impl.NamedDataStore()
        store.add_named_data("small", b"a distinct small blob")
        cost = read_cost(lambda: store.add_named_data("w", blob))
        if cost > (64 << 10) + 4096:
            return f"adding a 4 MiB file whose fingerprint matches no buffer read {cost} bytes"
        return None
