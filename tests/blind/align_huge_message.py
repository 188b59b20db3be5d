"""Breaks: NDS-ADD-9
Profile: strict
Bug: NDS-ADD-3's message formats the alignment with ``str()``, so an alignment of ``-10**5000``
raises Python's "Exceeds the limit (4300 digits)" ``ValueError`` instead of the promised message.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import _checked

from . import implementation


def _check_arguments(
    key: object, data: object, alignment: object, external_tag: object
) -> tuple[str, reference.CordBuffer, int, str | None]:
    if type(alignment) is int and alignment <= 0:
        raise ValueError(f"Alignment must be greater than 0, received {alignment}.")
    return _checked(key, data, alignment, external_tag)


class NamedDataStore(reference.NamedDataStore):
    _check_arguments = staticmethod(_check_arguments)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    try:
        store.add_named_data("k", b"abc", -(10**5000))
    except ValueError as exc:
        message = str(exc)
        if not message.startswith("Alignment must be greater than 0, received "):
            return f"an alignment of -10**5000 raised {message[:80]!r}"
        return None
    return "an alignment of -10**5000 was accepted"


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
