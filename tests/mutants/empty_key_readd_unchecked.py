"""Breaks: NDS-KEY-4, NDS-KEY-3

``add_named_data`` that takes a key re-added with an empty blob, where the key's buffer is empty
too, as the same blob without comparing digests: an empty file-backed blob with another supplied
digest is silently accepted, not a "Duplicate key" error.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(self, key: str, data: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(data, (bytes, reference.FileBackedData)) and len(data) == 0:
            out = self.get_named_data_store_output()
            maps = [out.pte_data, *out.external_data.values()]
            entry = next((m[key] for m in maps if isinstance(key, str) and key in m), None)
            if entry is not None and len(out.buffers[entry.buffer_index]) == 0:
                return
        super().add_named_data(key, data, *args, **kwargs)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
