"""Breaks: NDS-DEDUP-7
Profile: core
Bug: empty blobs are special-cased to share the first empty buffer at once, without the digest
comparison: an empty file-backed blob supplied with a (wrong) digest is merged with the other
empty blobs instead of getting a buffer of its own.
"""

from __future__ import annotations

import hashlib

import reference
from conformance.api import Implementation
from reference.named_data import DataEntry

from . import implementation
from ._support import directory, make_file


class NamedDataStore(reference.NamedDataStore):
    def _add(self, key: str, data: object, alignment: int, tag: str | None, layout: object) -> None:
        empty = next((i for i, b in enumerate(self.buffers) if len(b) == 0), None)
        if key in self._tags or empty is None or len(data) != 0:
            super()._add(key, data, alignment, tag, layout)
            return
        entry = DataEntry(empty, alignment, layout)  # all empty blobs are one
        if tag is None or tag in self.external_data:
            self._unlend(tag)[key] = entry
        else:
            self.external_data[tag] = {key: entry}
        self._tags[key] = tag
        self._changes += 1


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        store = impl.NamedDataStore()
        store.add_named_data("empty", b"")
        wrong = hashlib.sha256(b"not empty").digest()
        blob = impl.FileBackedData(make_file(tmp + "/e", b""), sha256=wrong)
        store.add_named_data("file", blob)
        out = store.get_named_data_store_output()
        if len(out.buffers) != 2:
            return "an empty blob with a wrong supplied digest shares the empty buffer"
        return None
