"""Breaks: NDS-MERGE-3

``merge_named_data_store`` that closes ``other``'s file-backed buffers the target did not keep
("duplicates"), deleting those ``other`` owns, though ``other`` still holds them.
"""

from __future__ import annotations

import os
from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._base import Store
from ._proofs_b import raised


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        super().merge_named_data_store(other)
        kept = {id(buffer) for buffer in self.buffers}
        for buffer in other.buffers:
            if isinstance(buffer, reference.FileBackedData) and id(buffer) not in kept:
                buffer.close()


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    target, other = impl.NamedDataStore(), impl.NamedDataStore()
    target.add_named_data("w", b"weights")
    with directory() as tmp:
        theirs = impl.FileBackedData(make_file(os.path.join(tmp, "w"), b"weights"), cleanup=True)
        other.add_named_data("w", theirs)
        target.merge_named_data_store(other.get_named_data_store_output())
        error = raised(theirs.to_bytes)
        theirs.close()
    return None if error is None else f"after a merge, the other's file-backed buffer: {error!r}"
