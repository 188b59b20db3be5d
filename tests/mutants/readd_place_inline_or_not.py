"""Breaks: NDS-KEY-5

A re-added key checked for its place only as inline versus external: re-adding it with equal
contents under another external tag is silently accepted, and the second tag's file misses it.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._base import Store
from ._proofs_c import readd_refused


class NamedDataStore(Store):
    @staticmethod
    def _other_place(old_tag: str | None, tag: str | None) -> bool:
        return (old_tag is None) != (tag is None)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    return readd_refused(impl, {"external_tag": "one"}, {"external_tag": "two"})
