"""Breaks: NDS-DEDUP-10, NDS-DEDUP-7
Profile: core
Bug: a blob of at most 32 bytes whose fingerprint matches a buffer is taken as equal without a
digest (its fingerprint is all of it), ignoring a digest supplied with a file-backed blob (an
empty file with a wrong digest shares the empty buffer too).
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


class NamedDataStore(named_data.NamedDataStore):
    def _add(self, key, data, alignment, tag, layout):
        if key not in self._tags and len(data) <= named_data.FINGERPRINT_PREFIX:
            index = self._fps.get(named_data._fingerprint(data))
            if index is not None and index >= 0:
                data = self.buffers[index]  # the whole contents matched: the same blob
        super()._add(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    import os

    from ._support import directory, make_file

    with directory() as d:
        blob = impl.FileBackedData(make_file(os.path.join(d, "w"), b"hi"), sha256=b"\x01" * 32)
        try:
            store = impl.NamedDataStore()
            store.add_named_data("a", b"hi")
            store.add_named_data("b", blob)
            buffers = store.get_named_data_store_output().buffers
        finally:
            blob.close()
    if len(buffers) != 2:
        return "a file-backed blob with another supplied digest shares the buffer of equal bytes"
    return None
