"""Breaks: HOOK-COPY-5

A copy hook that deep-copies a program but keeps its ``state_dict`` and ``constants`` mappings
(not only the tensors in them) shared with the original: preprocess replacing a weight in the
copy replaces it in the caller's program too.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TypeVar

from conformance.adapters import reference as reference_adapter
from conformance.api import Implementation

from . import implementation
from ._proofs_a import Program

T = TypeVar("T")


class Lowering(reference_adapter.Lowering):
    def default_copy(self, program: T, compile_specs: Sequence[object]) -> T:
        shared = [getattr(program, name, None) for name in ("state_dict", "constants")]
        memo = {id(m): m for m in shared if m is not None}
        return copy.deepcopy(program, memo)


IMPLEMENTATION = implementation(__name__, lowering=Lowering())


def scenario(impl: Implementation) -> str | None:
    lowering = impl.lowering
    if lowering is None:
        return None
    original = Program("forward")
    copied = lowering.default_copy(original, [lowering.compile_spec("probe", b"a")])
    copied.state_dict["weight"] = "replaced by preprocess"
    copied.constants["new"] = 1
    if original.state_dict["weight"] != [1.0, 2.0] or original.constants:
        return "preprocess replacing a weight of the default copy replaced it in the original"
    return None
