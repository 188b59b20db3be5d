"""Breaks: HOOK-COPY-3

Lowering that takes a copy comparing equal to its program for "no copy made" and hands preprocess
the original program instead: a test by ``==`` where the rule is identity, so the copy's own
``__eq__`` decides what preprocess gets.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.api import Implementation

from . import implementation
from ._base import CopyHook, ProbeLowering


def _original_when_equal(hook: CopyHook | None, specs: list[Sequence[object]]) -> CopyHook | None:
    if hook is None:
        return None

    def hooked(program: object, compile_specs: Sequence[object]) -> object:
        copied = hook(program, compile_specs)
        return program if copied == program else copied

    return hooked


IMPLEMENTATION = implementation(__name__, lowering=ProbeLowering(_original_when_equal))


class _SaysEqual:
    """A copy that says it equals anything."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


def scenario(impl: Implementation) -> str | None:
    if impl.lowering is None:
        raise ValueError(f"{impl.name} has no lowering")
    copied, given = _SaysEqual(), []
    impl.lowering.lower(
        {"forward": [({"graph": "original"}, [impl.lowering.compile_spec("k", b"v")])]},
        lambda program, compile_specs: copied,
        lambda program, compile_specs: given.append(program),
    )
    if given != [copied] or given[0] is not copied:
        return f"preprocess got {given!r}, not the copy the hook returned (which says it is equal)"
    return None
