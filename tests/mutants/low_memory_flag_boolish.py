"""Breaks: HOOK-LOW-3

The ``low_memory_mode`` value read the way a porter reads a boolean flag: ``1``, ``TRUE`` and
``YES`` (any case) mean ON, ``0``, ``FALSE`` and ``NO`` mean OFF, besides ``ON`` and ``OFF``;
only other values raise. The spec allows ON or OFF alone: a value a mistyped or foreign flag
gives must be refused, not read as a mode.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.api import Implementation
from reference import hooks
from tests.blind._support import flag_refused

from . import implementation
from ._base import LowMemory

_READINGS = {b"ON": True, b"1": True, b"TRUE": True, b"YES": True}
_READINGS |= {b"OFF": False, b"0": False, b"FALSE": False, b"NO": False}


class Weights(LowMemory):
    def mode(self, values: Sequence[bytes]) -> bool:
        readings = set()
        for value in values:
            if value.upper() not in _READINGS:
                return hooks.is_low_memory_mode(
                    [hooks.CompileSpec(hooks.LOW_MEMORY_MODE, value)]
                )  # refused, named as the reference names it
            readings.add(_READINGS[value.upper()])
        if len(readings) > 1:
            raise ValueError(f"Conflicting {hooks.LOW_MEMORY_MODE} compile specs: {values!r}")
        return readings == {True}


IMPLEMENTATION = implementation(__name__, low_memory=Weights())


def scenario(impl: Implementation) -> str | None:
    return flag_refused(impl, b"true")
