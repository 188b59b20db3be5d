"""An action run at one chosen step of a call, where a step is the moment just before or just
after one of the OS calls it makes (as in :mod:`.interrupts`' ``calls`` mode): for what a test
does at that moment that is more than calling one signal's handler (raising several signals for
real, in sequence; taking a name the call has just freed)."""

from __future__ import annotations

import builtins
import contextlib
import gc
import os
import signal
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from .interrupts import OS_CALLS

__all__ = ["StepCounter", "at_step", "count_calls_steps", "raise_in_sequence"]

T = TypeVar("T")


class StepCounter:
    """Counts the steps; at step ``chosen`` runs ``action`` once (``None``: only counts)."""

    def __init__(self, chosen: int | None, action: Callable[[], object]) -> None:
        self.chosen = chosen
        self.action = action
        self.step = 0
        self.fired = False

    def tick(self) -> None:
        step, self.step = self.step, self.step + 1
        if step == self.chosen:
            self.fired = True
            self.action()

    def wrap(self, real: Callable[..., T]) -> Callable[..., T]:
        def stepped(*args: Any, **kwargs: Any) -> T:
            self.tick()
            result = real(*args, **kwargs)
            self.tick()
            return result

        return stepped


@contextlib.contextmanager
def at_step(chosen: int | None, action: Callable[[], object]) -> Iterator[StepCounter]:
    """Over the block, every OS call of :data:`.interrupts.OS_CALLS` (and ``open``) counts two
    steps, and ``action`` runs at step ``chosen``; the garbage collector is off, so that no
    finalizer of earlier work adds steps. Everything is put back after the block."""
    saved: list[tuple[object, str, Any]] = [(builtins, "open", builtins.open)]
    saved += [(os, name, getattr(os, name)) for name in OS_CALLS]
    counter = StepCounter(chosen, action)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for owner, name, real in saved:
            setattr(owner, name, counter.wrap(real))
        yield counter
    finally:
        for owner, name, real in saved:
            setattr(owner, name, real)
        if collecting:
            gc.enable()


def count_calls_steps(call: Callable[[], object]) -> int:
    """How many steps ``call`` takes when nothing happens at any."""
    with at_step(None, lambda: None) as counter:
        call()
    return counter.step


def raise_in_sequence(*signals: int) -> None:
    """Raise each signal for real, one after the other. Where a handler runs at once and raises
    (an implementation that defers nothing), the next is raised while that exception unwinds,
    as a signal arriving then would be; a deferring one records them all, in order."""
    if not signals:
        return
    try:
        signal.raise_signal(signals[0])
    finally:
        raise_in_sequence(*signals[1:])
