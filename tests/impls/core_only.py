"""A user implementation with no optional part at all (SPEC.md section 1.1): the reference's Cord,
NamedDataStoreOutput and DataEntry, and its NamedDataStore without ``externalize_pte_data``; no
FileBackedData, no sweep, no hooks.

``cordspec run --impl tests.impls.core_only`` must conform, and no clause that section 1.1 lists
for an optional part may be credited as passed (tests/test_optional_parts.py).
"""

from __future__ import annotations

from reference import Cord, DataEntry, NamedDataStoreOutput
from reference import NamedDataStore as _Store

__all__ = ["Cord", "DataEntry", "NamedDataStore", "NamedDataStoreOutput"]


def _read_through(name: str) -> property:
    """A read-only attribute of the wrapped reference store, under the same name."""
    return property(lambda self: getattr(self._store, name), doc=f"The store's ``{name}``.")


class NamedDataStore:
    """The reference's store, without ``externalize_pte_data``."""

    def __init__(self) -> None:
        self._store = _Store()

    def add_named_data(self, *args: object, **kwargs: object) -> None:
        self._store.add_named_data(*args, **kwargs)  # type: ignore[arg-type]  # passed on as given

    def get_named_data_store_output(self) -> NamedDataStoreOutput:
        return self._store.get_named_data_store_output()

    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        self._store.merge_named_data_store(other)

    # The store's de-facto public surface (SPEC.md section 4.8, core): what ExecuTorch's own code
    # reads from a store, passed through from the reference's.
    key_to_buffer_idx = _read_through("key_to_buffer_idx")
    buffers = _read_through("buffers")
    pte_data = _read_through("pte_data")
    external_data = _read_through("external_data")
