"""Breaks: NDS-OUT-4
Profile: core
Bug: ``DataEntry`` checks its fields in ``__post_init__`` (an int index and alignment), so a
hand-made entry with other values cannot even be built to reach the merge that judges it.
"""

from __future__ import annotations

from dataclasses import dataclass

import reference
from conformance.api import Implementation

from . import implementation


@dataclass(frozen=True)
class DataEntry(reference.DataEntry):
    def __post_init__(self) -> None:
        for name in ("buffer_index", "alignment"):
            value = getattr(self, name)
            if type(value) is not int:
                raise TypeError(f"{name} must be int, not {type(value).__name__}")


IMPLEMENTATION = implementation(__name__, DataEntry=DataEntry)


def scenario(impl: Implementation) -> str | None:
    index: object = "0"
    alignment: object = 1.5
    try:
        entry = impl.DataEntry(index, alignment, None)
    except Exception as exc:  # any refusal is the violation
        return f"DataEntry('0', 1.5, None) raised {exc!r}"
    if entry.buffer_index is not index or entry.alignment is not alignment:
        return "DataEntry did not keep its values as given"
    return None
