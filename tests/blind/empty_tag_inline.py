"""Breaks: NDS-ADD-6
Profile: strict
Bug: the tag is tested for truth (``if external_tag:``), so an empty tag ``""`` is taken as no
tag and the entry goes inline instead of raising ``ValueError``.
"""

from __future__ import annotations

from conformance.api import Implementation

from . import implementation
from ._steps import Arguments, CheckingFirst


class NamedDataStore(CheckingFirst):
    def _check_first(self, key: object, data: object, alignment: object, tag: object) -> Arguments:
        if not tag:
            tag = None
        return key, data, alignment, tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    try:
        store.add_named_data("k", b"abc", external_tag="")
    except ValueError:
        return None
    inline = "k" in store.get_named_data_store_output().pte_data
    return f"an empty tag was accepted{' (stored inline)' if inline else ''}"
