"""Breaks: HOOK-COPY-1, HOOK-COPY-5
Profile: core
Bug: to avoid copying the weights, the default copy hook seeds ``deepcopy``'s memo with the
program's ``state_dict`` and ``constants`` mappings themselves rather than with the tensors in them:
the copy shares the mappings, so preprocess replacing a weight in the copy replaces it in the
original.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TypeVar

from conformance.adapters.reference import Lowering
from conformance.api import Implementation
from reference import hooks

from . import implementation

P = TypeVar("P")


class BackendDetails(hooks.BackendDetails):
    @classmethod
    def copy_exported_program_for_preprocess(
        cls, edge_program: P, compile_specs: Sequence[hooks.CompileSpec]
    ) -> P:
        memo: dict[int, object] = {}
        for name in ("state_dict", "constants"):
            shared = getattr(edge_program, name, None)
            if shared is not None:
                memo[id(shared)] = shared  # meant: its tensors; shares the mapping itself
        return copy.deepcopy(edge_program, memo)


IMPLEMENTATION = implementation(__name__, lowering=Lowering(base=BackendDetails))


class Program:
    def __init__(self) -> None:
        self.graph = ["placeholder", "linear", "output"]
        self.state_dict = {"weight": [1.0, 2.0]}
        self.constants: dict[str, object] = {}


def scenario(impl: Implementation) -> str | None:
    assert impl.lowering is not None
    original = Program()
    copied = impl.lowering.default_copy(original, [])
    copied.state_dict["weight"] = [0.0]
    copied.constants["scale"] = 2
    if original.state_dict != {"weight": [1.0, 2.0]} or original.constants:
        return f"a change to the copy's mappings reached the original: {vars(original)}"
    return None
