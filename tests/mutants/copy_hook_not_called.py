"""Breaks: HOOK-COPY-4, HOOK-COPY-2

Lowering that deep-copies each submodule itself instead of calling the backend's
``copy_exported_program_for_preprocess``: an override is never called.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from conformance.api import Implementation

from . import implementation
from ._base import CopyHook, ProbeLowering
from ._proofs_a import lowered


def _deep_copy_instead(hook: CopyHook | None, specs: list[Sequence[object]]) -> CopyHook:
    return lambda program, compile_specs: copy.deepcopy(program)


IMPLEMENTATION = implementation(__name__, lowering=ProbeLowering(_deep_copy_instead))


def scenario(impl: Implementation) -> str | None:
    hooked, seen, _ = lowered(impl, [b"a"])
    if not hooked:
        return f"lowering never called the backend's copy hook (preprocess saw {len(seen)} program)"
    return None
