"""Breaks: NDS-SURFACE-1
Profile: core
Bug: ``key_to_buffer_idx`` is built from ``pte_data`` only, so external keys (and every key after
``externalize_pte_data``) are missing from it.
"""

from __future__ import annotations

from collections.abc import Mapping

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    @property
    def key_to_buffer_idx(self) -> Mapping[str, int]:
        return {key: entry.buffer_index for key, entry in self.pte_data.items()}


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("inline", b"one")
    store.add_named_data("ext", b"two", external_tag="model")
    missing = [k for k in ("inline", "ext") if k not in store.key_to_buffer_idx]
    if missing:
        return f"key_to_buffer_idx lacks {missing}"
    return None
