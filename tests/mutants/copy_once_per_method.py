"""Breaks: HOOK-COPY-2, HOOK-COPY-3

Lowering that calls the copy hook once per method, on its first submodule, and hands that copy to
preprocess for every submodule of the method: right for methods of one partition, wrong after.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from conformance.api import Implementation

from . import implementation
from ._base import ProbeLowering
from ._proofs_a import lowered


class Lowering(ProbeLowering):
    def __init__(self) -> None:
        super().__init__(lambda hook, specs: hook)

    def lower(
        self,
        submodules: Any,
        copy_hook: Callable[[object, Sequence[object]], object] | None,
        preprocess: Callable[[object, Sequence[object]], None],
    ) -> None:
        hook = copy_hook or self.default_copy
        for subs in submodules.values():
            if not subs:
                continue
            first = hook(*subs[0])
            for _program, specs in subs:
                preprocess(first, specs)


IMPLEMENTATION = implementation(__name__, lowering=Lowering())


def scenario(impl: Implementation) -> str | None:
    """Two submodules of one method: each copied once, and preprocess gets each copy."""
    hooked, seen, _ = lowered(impl, [b"a", b"b"])
    copies = [made for _, made, _ in hooked]
    given = [program for program, _ in seen]
    if (
        len(copies) != 2
        or len(given) != 2
        or any(a is not b for a, b in zip(copies, given, strict=False))
    ):
        names = [getattr(p, "name", p) for p in given]
        return f"{len(copies)} copy hook call(s) for 2 submodules; preprocess got {names}"
    return None
