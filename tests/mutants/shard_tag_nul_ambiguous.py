"""Breaks: NDS-EXT-9

A shard's tag hashed over its keys joined by NUL as they are, NULs in keys included (ExecuTorch's
formula): ``["a", "b"]`` and ``["a\\0b"]`` get one tag, and the second shard is refused as an
"external data tag collision".
"""

from __future__ import annotations

import hashlib

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import shards_problem


class NamedDataStore(Store):
    @staticmethod
    def _shard_tag(prefix: str, keys: list[str]) -> str:
        return f"{prefix}_{hashlib.sha256(chr(0).join(keys).encode()).hexdigest()}"


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return shards_problem(impl, ["a\0b"], [8], 1 << 20)
