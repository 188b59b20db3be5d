"""Breaks: NDS-EXT-4, NDS-EXT-9

A shard's tag hashed over its sorted keys joined with nothing (``"".join``) instead of NUL: right
for a shard of one key, wrong for every shard of two or more (and ``ab`` + ``c`` collides with
``a`` + ``bc``); its tags of keys holding NUL are not NDS-EXT-9's either.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._base import KeysJoined
from ._proofs_c import shards_problem


class NamedDataStore(KeysJoined):
    separator = ""


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return shards_problem(impl, ["a", "b"], [8, 8], 1 << 20)
