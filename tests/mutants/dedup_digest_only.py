"""Breaks: NDS-DEDUP-3, NDS-DEDUP-2, NDS-DEDUP-4

Dedup by SHA-256 alone, without the length check of the fingerprint: every new blob is hashed and
compared with every stored buffer, whatever its length (a file is read before any fingerprint
matches: NDS-DEDUP-4), so unmatched blobs are read in full, and
blobs of different lengths whose (supplied) digests are equal share a buffer.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference.named_data import _digest
from tests.blind._support import directory, sha

from . import implementation
from ._base import Store
from ._proofs_a import blob, store_of


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        if key not in self._tags:
            digest = _digest(data)
            for index, buffer in enumerate(self.buffers):
                if self._buffer_digest(index) == digest:
                    data = buffer
                    break
        super()._add(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    """Files of different lengths supplied with one digest are different blobs."""
    with directory() as tmp:
        same = sha(b"one digest")
        out = store_of(
            impl,
            ("short", blob(impl, tmp, "s", b"abc", sha256=same)),
            ("long", blob(impl, tmp, "l", b"abcd", sha256=same)),
        )
        if len(out.buffers) != 2:
            return "blobs of 3 and 4 bytes with equal supplied digests share one buffer"
        return None
