"""Not a mutant: the steps of ``_base`` put together unchanged, which the suite must pass."""

from __future__ import annotations

from . import implementation
from ._base import LowMemory, LowMemoryBackend, ProbeLowering, StepwiseMove, Store, Weights


class Backend(LowMemoryBackend):
    blob_class = StepwiseMove


weights = Weights()
IMPLEMENTATION = implementation(
    __name__,
    FileBackedData=StepwiseMove,
    NamedDataStore=Store,
    lowering=ProbeLowering(lambda hook, specs: hook),
    weights=weights,
    weights_store=weights,
    low_memory=LowMemory(Backend),
)
