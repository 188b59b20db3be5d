"""Breaks: NDS-MERGE-7

``merge_named_data_store`` that takes NDS-MERGE-7's "a map that is not a dict" by the letter: a
``MappingProxyType`` or a mapping class of the caller's, or a tuple of buffers, is refused with a
``TypeError``, where a merge reads any mapping as a dict and any sequence as a list.
"""

from __future__ import annotations

import types
from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_b import raised


class NamedDataStore(Store):
    def merge_named_data_store(self, other: Any) -> None:
        maps = [("pte_data", getattr(other, "pte_data", None))]
        external = getattr(other, "external_data", None)
        maps.append(("external_data", external))
        if isinstance(external, dict):
            maps += [(f"external_data[{tag!r}]", m) for tag, m in external.items()]
        for name, value in maps:
            if value is not None and not isinstance(value, dict):
                raise TypeError(f"{name} must be a dict, not {type(value).__name__}")
        buffers = getattr(other, "buffers", None)
        if buffers is not None and not isinstance(buffers, list):
            raise TypeError(f"buffers must be a list, not {type(buffers).__name__}")
        super().merge_named_data_store(other)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    entries = types.MappingProxyType({"w": impl.DataEntry(0, 1, None)})
    error = raised(
        lambda: store.merge_named_data_store(impl.NamedDataStoreOutput((b"A",), entries, {}))
    )
    if error is not None or "w" not in store.key_to_buffer_idx:
        return f"merging a tuple of buffers and a MappingProxyType map gave {error!r}"
    return None
