"""Interrupts injected deterministically: a ``KeyboardInterrupt`` at the n-th line a call runs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


class Injected(KeyboardInterrupt):
    """The interrupt a trace function raised (told apart from a real Ctrl-C)."""


def interrupted(call: Callable[[], object], at: int) -> bool:
    """Run ``call()``, raising :class:`Injected` at the ``at``-th line event (1-based) of it and
    of everything it calls. True if the interrupt was raised (and propagated out of ``call``),
    False if the call ended first. The previous trace function (a coverage tool's) is restored."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
            if count == at:
                raise Injected(f"injected at line event {at}")
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        call()
    except Injected:
        return True
    finally:
        sys.settrace(previous)
    return False
