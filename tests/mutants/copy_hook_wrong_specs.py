"""Breaks: HOOK-COPY-2, HOOK-COPY-3

Lowering that calls the copy hook once per submodule, but always with the first submodule's
compile specs instead of each submodule's own.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.api import Implementation

from . import implementation
from ._base import CopyHook, ProbeLowering
from ._proofs_a import lowered


def _first_specs(hook: CopyHook | None, specs: list[Sequence[object]]) -> CopyHook | None:
    if hook is None:
        return None
    return lambda program, compile_specs: hook(program, specs[0])


IMPLEMENTATION = implementation(__name__, lowering=ProbeLowering(_first_specs))


def scenario(impl: Implementation) -> str | None:
    hooked, _, made = lowered(impl, [b"a", b"b"])
    given = [specs for _, _, specs in hooked]
    if given != [[spec] for spec in made]:
        return f"the copy hook was given the compile specs {given}, not each submodule's {made}"
    return None
