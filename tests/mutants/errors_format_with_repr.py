"""Breaks: NDS-ADD-9

``add_named_data``'s checks that format a bad key, tag or alignment with ``{value!r}`` and
NDS-ADD-3's alignment with ``str()``, as the reference did before NDS-ADD-9: a key whose
``__repr__`` raises gives that error instead of the ``TypeError``, and an alignment of
``-10**5000`` gives Python's digit-limit ``ValueError`` instead of NDS-ADD-3's message.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation
from reference import named_data

from . import implementation
from ._base import Store
from ._proofs_b import key_refused


def _checked_with_repr(key: object, data: object, alignment: object, tag: object) -> Any:
    if not isinstance(key, str):
        raise TypeError(f"key must be str, not {type(key).__name__}: {key!r}")
    if not isinstance(data, (bytes, reference.FileBackedData)):
        raise TypeError(f"Unsupported named data type: {type(data).__name__}")
    if alignment is None:
        alignment = 1
    if isinstance(alignment, bool) or not isinstance(alignment, int):
        raise TypeError(f"alignment must be int, not {type(alignment).__name__}: {alignment!r}")
    alignment = int.__index__(alignment)
    if alignment <= 0:
        raise ValueError(f"Alignment must be greater than 0, received {alignment}.")
    if tag is not None and not isinstance(tag, str):
        raise TypeError(f"external_tag must be str or None, not {type(tag).__name__}: {tag!r}")
    if tag == "":
        raise ValueError("external_tag must not be empty (use None for data inline in the PTE)")
    key, tag = str.__str__(key), None if tag is None else str.__str__(tag)
    named_data._text(key, "key")  # NDS-KEY-7 as the reference checks it: not this mutant's break
    if tag is not None:
        named_data._text(tag, "external_tag")
    return key, data, alignment, tag


class NamedDataStore(Store):
    _check_arguments = staticmethod(_checked_with_repr)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class _Unshowable:
    """A key that cannot be shown by its own ``__repr__``."""

    def __repr__(self) -> str:
        raise RuntimeError("this value has no repr")


def scenario(impl: Implementation) -> str | None:
    return key_refused(impl, _Unshowable(), "a key whose __repr__ raises", "_Unshowable")
