"""Breaks: NDS-EXT-9

A shard's tag hashed over its keys joined by NUL as they are, NULs in keys included (ExecuTorch's
formula): ``["a", "b"]`` and ``["a\\0b"]`` get one tag, and the second shard is refused as an
"external data tag collision".
"""

from __future__ import annotations

import hashlib

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    @staticmethod
    def _shard_tag(prefix: str, keys: list[str]) -> str:
        return f"{prefix}_{hashlib.sha256(chr(0).join(keys).encode()).hexdigest()}"


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
