"""Breaks: HOOK-COPY-2
Profile: core
Bug: lowering calls the copy hook of every submodule of a method with the compile specs of the
method's first submodule (preprocess still gets each submodule's own).
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
    return backend.copy_exported_program_for_preprocess(sub.program, subs[0].compile_specs)


IMPLEMENTATION = implementation(__name__, lowering=Lowering(lower_all=lowering_copying(_copy)))


def scenario(impl: Implementation) -> str | None:
    lowering = impl.lowering
    assert lowering is not None
    first, second = [lowering.compile_spec("mode", b"a")], [lowering.compile_spec("mode", b"b")]
    programs = [object(), object()]
    seen: list[tuple[object, list[object]]] = []

    def hook(program: object, specs: Sequence[object]) -> object:
        seen.append((program, list(specs)))
        return program

    lowering.lower(
        {"forward": [(programs[0], first), (programs[1], second)]}, hook, lambda p, s: None
    )
    expected = [(programs[0], first), (programs[1], second)]
    if seen != expected:
        return "the copy hook did not get each submodule's own compile specs"
    return None
