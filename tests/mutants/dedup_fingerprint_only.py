"""Breaks: NDS-DEDUP-2, NDS-DEDUP-4, NDS-DEDUP-10

Dedup by fingerprint alone: a blob whose length and first 32 bytes match a stored buffer is taken
to be equal to it, and no digest is ever compared, not even one supplied with a file (NDS-DEDUP-10).
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference.named_data import _fingerprint

from . import implementation
from ._base import Store
from ._proofs_a import store_of


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        lone = self._fps.get(_fingerprint(data))
        if lone is not None and key not in self._tags:
            data = self.buffers[lone]  # the stored object: "equal" without a digest
        super()._add(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    """Equal length and first 32 bytes, different after: two buffers."""
    out = store_of(impl, ("x", b"a" * 32 + b"x"), ("y", b"a" * 32 + b"y"))
    if len(out.buffers) != 2:
        return "blobs equal only in length and first 32 bytes share one buffer"
    return None
