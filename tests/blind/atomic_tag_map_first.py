"""Breaks: NDS-ATOMIC-1
Profile: strict
Bug: ``add_named_data`` makes the tag's map (``setdefault``) before checking a re-added key, so a
rejected add under a new tag leaves an empty map for that tag in the store.
"""

from __future__ import annotations

import contextlib

from conformance.api import Implementation

from . import implementation
from ._steps import Arguments, CheckingFirst


class NamedDataStore(CheckingFirst):
    def _check_first(self, key: object, data: object, alignment: object, tag: object) -> Arguments:
        if type(tag) is str and tag:
            self.external_data.setdefault(tag, {})
        return key, data, alignment, tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"weights")
    with contextlib.suppress(ValueError):
        store.add_named_data("w", b"other weights", external_tag="new")
    external = getattr(store, "external_data", {})
    if "new" in external:
        return f"a rejected add under tag 'new' left external_data = {external!r}"
    return None
