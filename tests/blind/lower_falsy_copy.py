"""Breaks: HOOK-COPY-3
Profile: core
Bug: lowering hands preprocess ``copy or program``, meant as "the original when the hook gave
nothing back", so a copy that is falsy (an empty container, a program whose ``__len__`` is 0)
is replaced by the original program.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import Lowering


def _lower_all(
    backend: type[hooks.BackendDetails],
    method_to_submodules: Mapping[str, Sequence[hooks.Submodule]],
) -> dict[str, list[hooks.PreprocessResult]]:
    specs = {m: [sub.compile_specs for sub in subs] for m, subs in method_to_submodules.items()}
    programs = {
        m: [
            backend.copy_exported_program_for_preprocess(sub.program, sub.compile_specs)
            or sub.program
            for sub in subs
        ]
        for m, subs in method_to_submodules.items()
    }
    return backend.preprocess_multimethod(programs, specs)


IMPLEMENTATION = implementation(__name__, lowering=Lowering(lower_all=_lower_all))


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


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
