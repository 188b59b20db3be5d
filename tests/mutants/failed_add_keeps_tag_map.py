"""Breaks: NDS-ATOMIC-1

``add_named_data`` that makes the map of a new tag before it fingerprints the blob: an add that
then fails (a closed or changed file) leaves an empty map for that tag, which fixes the tag's place
in the store's order.
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        if tag is not None and key not in self._tags:
            self.external_data.setdefault(tag, {})
        super()._add(key, data, alignment, tag, layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
