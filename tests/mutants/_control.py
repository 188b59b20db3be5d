"""Not a mutant: the steps of ``_base`` put together unchanged, which the suite must pass (the
steps of ``move_from`` and ``externalize_pte_data`` are the reference's own)."""

from __future__ import annotations

from . import implementation
from ._base import (
    BlobWritten,
    LowMemory,
    Owners,
    ProbeLowering,
    ReaddTaken,
    Store,
    SwappedIn,
    Weights,
)


class FileBackedData(Owners, SwappedIn):
    pass


class NamedDataStore(ReaddTaken, Store):
    pass


class LowMemoryBackend(BlobWritten):
    blob_class = FileBackedData


weights = Weights()
IMPLEMENTATION = implementation(
    __name__,
    FileBackedData=FileBackedData,
    NamedDataStore=NamedDataStore,
    lowering=ProbeLowering(lambda hook, specs: hook),
    weights=weights,
    weights_store=weights,
    low_memory=LowMemory(LowMemoryBackend),
)
