"""Breaks: NDS-KEY-3, NDS-MERGE-5
Profile: core
Bug: the "Duplicate key" message formats the key with ``!r``, so it reads ``Duplicate key 'w'``
where the fixed message holds the key's text (for an add and for a merge alike).
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


class NamedDataStore(named_data.NamedDataStore):
    def _readd(self, key, data, alignment, tag, layout):
        try:
            return super()._readd(key, data, alignment, tag, layout)
        except ValueError as exc:
            plain = f"Duplicate key {key} with different data."
            if str(exc).startswith(plain):
                rest = str(exc)[len(f"Duplicate key {key}") :]
                raise ValueError(f"Duplicate key {key!r}{rest}") from None
            raise


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"aa")
    expected = (
        "Duplicate key w with different data. Existing data size: 2 bytes. New data size: 3 bytes."
    )
    try:
        store.add_named_data("w", b"bbb")
    except ValueError as exc:
        if str(exc) != expected:
            return f"the duplicate-key message is {str(exc)!r}, not {expected!r}"
        return None
    return "a key re-added with other contents was accepted"
