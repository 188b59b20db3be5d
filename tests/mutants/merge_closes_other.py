"""Breaks: NDS-MERGE-3

``merge_named_data_store`` that closes ``other``'s file-backed buffers the target did not keep
("duplicates"), deleting those ``other`` owns, though ``other`` still holds them.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        super().merge_named_data_store(other)
        kept = {id(buffer) for buffer in self.buffers}
        for buffer in other.buffers:
            if isinstance(buffer, reference.FileBackedData) and id(buffer) not in kept:
                buffer.close()


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
