"""Breaks: HOOK-COPY-3
Profile: core
Bug: lowering hands preprocess ``copy or program``, meant as "the original when the hook gave
nothing back", so a copy that is falsy (an empty container, a program whose ``__len__`` is 0)
is replaced by the original program.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.adapters.reference import Lowering
from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._steps import lowering_copying


def _copy(
    backend: type[hooks.BackendDetails], sub: hooks.Submodule, subs: Sequence[hooks.Submodule]
) -> object:
    return (
        backend.copy_exported_program_for_preprocess(sub.program, sub.compile_specs) or sub.program
    )


IMPLEMENTATION = implementation(__name__, lowering=Lowering(lower_all=lowering_copying(_copy)))


def scenario(impl: Implementation) -> str | None:
    assert impl.lowering is not None
    program: dict[str, object] = {"graph": ["node"]}
    copy: dict[str, object] = {}
    seen: list[object] = []
    spec = impl.lowering.compile_spec("k", b"v")
    impl.lowering.lower(
        {"forward": [(program, [spec])]},
        lambda p, s: copy,
        lambda p, s: seen.append(p),
    )
    if len(seen) != 1 or seen[0] is not copy:
        return "preprocess did not receive the (empty) object the copy hook returned"
    return None
