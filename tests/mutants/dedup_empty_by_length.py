"""Breaks: NDS-DEDUP-7, NDS-DEDUP-10, NDS-KEY-4

``add_named_data`` that, once the store has an empty buffer, adds every later empty file-backed blob
as ``b""`` ("all empty blobs are equal"), so its supplied digest is never looked at: an empty blob
with a wrong supplied digest shares the empty buffer (or matches a key) instead of standing apart.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


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
