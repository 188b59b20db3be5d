"""Breaks: HOOK-LOW-3
Profile: strict
Bug: ``low_memory_mode`` is read from the first spec that has it (case-insensitively, an invalid
value raising), so conflicting specs (``ON`` then ``OFF``) are not an error: the first one wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import LowMemory


class Weights(LowMemory):
    def mode(self, values: Sequence[bytes]) -> bool:
        for value in values:
            text = hooks._mode(value)
            if text not in ("ON", "OFF"):
                raise ValueError(f"Invalid low_memory_mode: {text}")
            return text == "ON"
        return False


IMPLEMENTATION = implementation(__name__, low_memory=Weights(hooks.FileBackedAotiBackend))


def scenario(impl: Implementation) -> str | None:
    assert impl.low_memory is not None
    try:
        on = impl.low_memory.mode([b"ON", b"off"])
    except ValueError:
        return None
    return f"conflicting low_memory_mode specs ON and off read as {'ON' if on else 'OFF'}"
