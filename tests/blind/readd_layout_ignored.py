"""Breaks: NDS-KEY-6
Profile: strict
Bug: a key re-added with equal contents is compared by contents, place and alignment, but its
``tensor_layout`` is not compared: the second layout is silently dropped.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._steps import Compared, ComparingAs


class NamedDataStore(ComparingAs):
    def _compared(
        self, key: str, data: reference.CordBuffer, tag: str | None, layout: object
    ) -> Compared:
        entry, _ = self._stored(key)
        return data, tag, entry.tensor_layout  # the first layout kept


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("k", b"abc", tensor_layout="NCHW")
    try:
        store.add_named_data("k", b"abc", tensor_layout="NHWC")
    except ValueError as exc:
        return None if "'k'" in str(exc) else f"the error does not name the key: {exc}"
    return "a key re-added with another tensor_layout was accepted"
