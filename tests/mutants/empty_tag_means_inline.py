"""Breaks: NDS-ADD-6

``add_named_data`` that reads a falsy ``external_tag`` as "no tag": ``""`` puts the entry inline in
the PTE instead of raising ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference.named_data import _checked

from . import implementation
from ._base import Store
from ._proofs_b import refused


class NamedDataStore(Store):
    @staticmethod
    def _check_arguments(key: object, data: object, alignment: object, external_tag: object) -> Any:
        return _checked(key, data, alignment, external_tag or None)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    return refused(
        lambda: store.add_named_data("w", b"weights", 1, ""), ValueError, "external_tag ''"
    )
