"""Breaks: NDS-EXT-9
Profile: strict
Bug: a shard's tag joins its keys' UTF-8 with NUL as they are (NDS-EXT-4's formula), without
writing a NUL inside a key as the byte FF, so ``["a", "b"]`` and ``["a\\0b"]`` get one tag.
"""

from __future__ import annotations

import hashlib

import reference
from conformance.api import Implementation

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    @staticmethod
    def _shard_tag(prefix: str, keys: list[str]) -> str:
        joined = b"\0".join(key.encode() for key in keys)
        return f"{prefix}_{hashlib.sha256(joined).hexdigest()}"


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a\0b", b"abc")
    store.externalize_pte_data(100, "p")  # type: ignore[attr-defined]
    (tag,) = store.get_named_data_store_output().external_data
    expected = f"p_{hashlib.sha256(b'a' + bytes([0xFF]) + b'b').hexdigest()}"
    return None if tag == expected else f"the shard of key 'a\\0b' is tagged {tag!r}"
