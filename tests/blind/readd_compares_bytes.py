"""Breaks: NDS-KEY-4
Profile: core
Bug: a file-backed blob re-added under its key is compared with the stored one byte for byte
(both loaded), not by length and digest, so a supplied digest is not counted: equal bytes with a
different supplied digest are accepted instead of raising "Duplicate key".
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._steps import Compared, ComparingAs
from ._support import directory, make_file


class NamedDataStore(ComparingAs):
    def _compared(
        self, key: str, data: reference.CordBuffer, tag: str | None, layout: object
    ) -> Compared:
        _, existing = self._stored(key)
        if (
            isinstance(data, reference.FileBackedData)
            and not data.closed
            and len(data) == len(existing)
        ):
            theirs = existing if isinstance(existing, bytes) else existing.to_bytes()
            if data.to_bytes() == theirs:
                data = existing  # the same contents: the same blob
        return data, tag, layout


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        first = impl.FileBackedData(make_file(os.path.join(tmp, "a"), b"same weights"))
        second = impl.FileBackedData(
            make_file(os.path.join(tmp, "b"), b"same weights"), sha256=b"\x01" * 32
        )
        store = impl.NamedDataStore()
        store.add_named_data("k", first)
        try:
            store.add_named_data("k", second)
        except ValueError:
            return None
    return "equal bytes with another supplied digest were accepted under the same key"
