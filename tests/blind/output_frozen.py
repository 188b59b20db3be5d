"""Breaks: NDS-SURFACE-3
Profile: core
Bug: ``NamedDataStoreOutput`` is a frozen dataclass (and the store hands out one), so assigning an
output's ``buffers``, as ExecuTorch's deserializer does, raises ``FrozenInstanceError``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.api import Implementation
from reference import named_data

from . import implementation


@dataclasses.dataclass(frozen=True)
class NamedDataStoreOutput:
    buffers: Any
    pte_data: Any
    external_data: Any


class NamedDataStore(named_data.NamedDataStore):
    def get_named_data_store_output(self) -> Any:
        out = super().get_named_data_store_output()
        return NamedDataStoreOutput(out.buffers, out.pte_data, out.external_data)


IMPLEMENTATION = implementation(
    __name__, NamedDataStore=NamedDataStore, NamedDataStoreOutput=NamedDataStoreOutput
)


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("w", b"x")
    out = store.get_named_data_store_output()
    try:
        out.buffers = [b"y"]
    except Exception as exc:
        return f"an output's buffers cannot be assigned: {type(exc).__name__}: {exc}"
    return None
