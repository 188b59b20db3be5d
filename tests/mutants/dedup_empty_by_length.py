"""Breaks: NDS-DEDUP-7, NDS-DEDUP-10, NDS-KEY-4

``add_named_data`` that, once the store has an empty buffer, adds every later empty file-backed blob
as ``b""`` ("all empty blobs are equal"), so its supplied digest is never looked at: an empty blob
with a wrong supplied digest shares the empty buffer (or matches a key) instead of standing apart.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, sha

from . import implementation
from ._proofs_a import blob, store_of


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(self, key: str, data: Any, *args: Any, **kwargs: Any) -> None:
        if (
            isinstance(data, reference.FileBackedData)
            and not data.closed
            and len(data) == 0
            and any(len(b) == 0 for b in self.get_named_data_store_output().buffers)
        ):
            data = b""  # there is an empty buffer already: this one is the same
        super().add_named_data(key, data, *args, **kwargs)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        wrong = blob(impl, tmp, "e", b"", sha256=sha(b"not empty"))
        out = store_of(impl, ("bytes", b""), ("file", wrong))
        if len(out.buffers) != 2:
            return "an empty file with another supplied digest shares the empty buffer"
        return None
