"""Breaks: NDS-KEY-7

A store that accepts any ``str`` as a key or tag, as ExecuTorch's does: a key holding a lone
surrogate (what ``os.fsdecode`` gives for a name that is not UTF-8) is stored, and the later
``externalize_pte_data`` raises ``UnicodeEncodeError`` while it computes the shard's tag.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation
from reference import named_data

from . import implementation
from ._base import Store
from ._proofs_b import refused


def _unchecked_text(key: object, data: object, alignment: object, tag: object) -> Any:
    """The reference's checks, but of an ASCII stand-in for a ``str`` key or tag: their text is
    then taken as it is."""
    stand_in_key = "k" if type(key) is str else key
    stand_in_tag = ("t" if tag else "") if type(tag) is str else tag
    _, data, alignment, _ = named_data._checked(stand_in_key, data, alignment, stand_in_tag)
    return key, data, alignment, tag


class NamedDataStore(Store):
    _check_arguments = staticmethod(_unchecked_text)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    return refused(
        lambda: store.add_named_data("w\udcff", b"weights"), ValueError, "a lone surrogate key"
    )
