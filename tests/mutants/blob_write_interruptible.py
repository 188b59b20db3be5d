"""Breaks: HOOK-MAT-6

Low-memory ``materialize_weights_blob`` whose blob write defers no signal: a raising handler that
runs between the temporary's creation and the record of its name, or inside the clean-up of a
failed write, leaves the ``.tmp`` file (and its descriptor) behind, as a write guarded only by
``try``/``except`` does.
"""

from __future__ import annotations

from reference import hooks

from . import implementation
from ._base import LowMemory, LowMemoryBackend


class Blob(hooks._Blob):
    @staticmethod
    def deferral() -> None:
        return None


class Backend(LowMemoryBackend):
    _blob = Blob


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))
