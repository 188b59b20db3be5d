"""Breaks: NDS-ADD-6

``add_named_data`` that reads a falsy ``external_tag`` as "no tag": ``""`` puts the entry inline in
the PTE instead of raising ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from reference.named_data import _checked

from . import implementation
from ._base import Store


class NamedDataStore(Store):
    @staticmethod
    def _check_arguments(key: object, data: object, alignment: object, external_tag: object) -> Any:
        return _checked(key, data, alignment, external_tag or None)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
