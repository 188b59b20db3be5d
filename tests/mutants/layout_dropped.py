"""Breaks: NDS-ADD-7

``add_named_data`` that drops the ``tensor_layout`` it is given (entries get None).
"""

from __future__ import annotations

from typing import Any

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        super()._add(key, data, alignment, tag, None)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
