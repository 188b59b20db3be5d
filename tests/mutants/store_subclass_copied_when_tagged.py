"""Breaks: NDS-ADD-1

A blob of a subclass of ``bytes`` added with an external tag is stored as ``bytes(data)``, a copy
(an inline one is stored by identity): the external buffer is not the object added.
"""

from __future__ import annotations

from typing import Any

import reference

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def add_named_data(
        self,
        key: str,
        data: Any,
        alignment: Any = 1,
        external_tag: Any = None,
        tensor_layout: Any = None,
    ) -> None:
        if external_tag is not None and isinstance(data, bytes) and type(data) is not bytes:
            data = bytes(data)
        super().add_named_data(key, data, alignment, external_tag, tensor_layout)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)
