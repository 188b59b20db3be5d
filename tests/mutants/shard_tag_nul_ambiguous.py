"""Breaks: NDS-EXT-9

A shard's tag hashed over its keys joined by NUL as they are, NULs in keys included (ExecuTorch's
formula): ``["a", "b"]`` and ``["a\\0b"]`` get one tag, and the second shard is refused as an
"external data tag collision".
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._base import KeysJoined
from ._proofs_c import shards_problem


class NamedDataStore(KeysJoined):
    separator = "\0"


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return shards_problem(impl, ["a\0b"], [8], 1 << 20)
