"""Interrupts injected at chosen steps of a call, and campaigns of many such calls (FBD-INTR-1).

A *step* is, in ``calls`` mode, a moment just before or just after one of the OS calls an
implementation makes (``os.open``, ``os.replace``, ``os.unlink``, ...; step ``2k`` is before the
``k``-th call, ``2k + 1`` after it); in ``lines`` mode, a line of Python about to run (a trace
function counts them, in every frame the call makes). An interrupt raised from a trace function
ends tracing (Python unsets it), so in ``lines`` mode a second interrupt reaches only an
implementation that deferred the first; ``calls`` mode reaches clean-ups with a second one.

At a chosen step the current handler of the signal injected (SIGINT, or SIGTERM with a handler
that raises ``SystemExit`` as graceful-shutdown code does) is called as the signal would call it:
the handler raises right there; an implementation that defers signals over its critical steps has
put its own handler in place and records it instead. The same call
run with no step chosen counts its steps, so that every step of it can be tried. The garbage
collector is off over the block: a finalizer of earlier work run inside it would add steps that
depend on the test order, and an interrupt landing in one would be swallowed.

:func:`campaign` runs a call many times with one or two interrupts at random steps and checks each
outcome; its size is ``default`` unless ``CORDSPEC_LONG_CAMPAIGN`` is set (``tox -e faults-long``).
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal, TypeVar

from .. import environment
from .observe import unobserved

__all__ = [
    "LONG_CAMPAIGN_ENV",
    "CampaignResult",
    "Interrupter",
    "campaign",
    "campaign_size",
    "count_steps",
    "deliver_sigint",
    "deliver_signal",
    "forget",
    "interrupted",
    "interrupting",
    "open_descriptors",
    "raised_by",
    "require_steps",
    "scenario",
    "sigint_handler",
    "sigterm_handler",
    "steps_in",
]

T = TypeVar("T")
Mode = Literal["calls", "lines"]

LONG_CAMPAIGN_ENV = environment.LONG_CAMPAIGN.name
"""Set (to anything but ``""`` or ``0``) for the long campaigns (10,000 moves, 3,000
constructions, ...)."""

OS_CALLS = ("open", "close", "replace", "rename", "unlink", "remove", "lstat", "stat", "fstat")
"""The ``os`` functions whose calls are steps; ``builtins.open`` is one too."""


_UNTRACED = frozenset({__file__, contextlib.__file__})


user_interrupts = 0
"""How many SIGINTs really sent (a user's Ctrl-C) :func:`sigint_handler` has seen in this
process."""


def sigint_handler(signum: int, frame: FrameType | None) -> None:
    """SIGINT's handler while suite tests run (the plugin puts it in place, and
    :func:`interrupting` over its block): like Python's own, it raises KeyboardInterrupt; a signal
    really sent, which comes with a frame (:func:`deliver_sigint` passes none), is also counted,
    so that the run stops after the test even where the test expected an injected interrupt or
    the signal landed in a callback that swallowed it (a finalizer, a tracer's)."""
    global user_interrupts
    if frame is not None:
        user_interrupts += 1
    raise KeyboardInterrupt


def sigterm_handler(signum: int, frame: FrameType | None) -> None:
    """A SIGTERM handler of graceful-shutdown code: it raises ``SystemExit`` (as ``sys.exit``
    does), in whatever the main thread was running; what :func:`interrupting` puts in place
    for SIGTERM's injections (FBD-INTR-1 covers every handler that raises)."""
    raise SystemExit(128 + signal.SIGTERM)


_HANDLERS: dict[int, Callable[[int, FrameType | None], None]] = {
    signal.SIGINT: sigint_handler,
    signal.SIGTERM: sigterm_handler,
}


def raised_by(signum: int) -> type[BaseException]:
    """What the handler :func:`interrupting` installs for ``signum`` raises."""
    return KeyboardInterrupt if signum == signal.SIGINT else SystemExit


def deliver_signal(signum: int) -> None:
    """Call ``signum``'s current handler as the signal would (if it is Python code)."""
    handler = signal.getsignal(signum)
    if callable(handler):
        handler(signum, None)


def deliver_sigint() -> None:
    """Call SIGINT's handler as the signal would: Python's default raises KeyboardInterrupt."""
    deliver_signal(signal.SIGINT)


class Interrupter:
    """Counts the steps of the calls made while it is installed, and interrupts at chosen ones
    with ``signum`` (SIGINT unless told)."""

    def __init__(self, steps: Collection[int] = (), signum: int = signal.SIGINT) -> None:
        self.steps = frozenset(steps)
        self.signum = signum
        self.step = 0
        self.delivered = 0
        self.delivered_at: list[str] = []
        """Where each signal was delivered: its step and the OS call or line it came at."""

    def tick(self, where: Callable[[], str] = lambda: "") -> None:
        """One step has passed: deliver the signal if it is a chosen one (``where()`` says where
        it is, asked only then)."""
        step, self.step = self.step, self.step + 1
        if step in self.steps:
            self.delivered += 1
            self.delivered_at.append(f"step {step}, {where()}")
            deliver_signal(self.signum)

    def wrap(self, real: Callable[..., T], name: str = "") -> Callable[..., T]:
        def stepped(*args: Any, **kwargs: Any) -> T:
            caller = sys._getframe(1)
            self.tick(lambda: f"before {name or 'an OS call'}() called at {_place(caller)}")
            result = real(*args, **kwargs)
            self.tick(lambda: f"after {name or 'an OS call'}() called at {_place(caller)}")
            return result

        return stepped


def _place(frame: FrameType) -> str:
    """``file.py:line in function`` of ``frame``."""
    code = frame.f_code
    return f"{os.path.basename(code.co_filename)}:{frame.f_lineno} in {code.co_name}"


def scenario(interrupter: Interrupter, mode: Mode) -> str:
    """What an interrupted run did to the call, in words: which steps were chosen, what a step
    counts in ``mode``, and where each SIGINT came (or that the call ended first)."""
    unit = (
        "the moments just before and after each OS call"
        if mode == "calls"
        else "the lines of Python the call ran"
    )
    where = "; ".join(interrupter.delivered_at) or "none reached: the call ended before"
    name = signal.Signals(interrupter.signum).name
    raising = raised_by(interrupter.signum).__name__
    return (
        f"{name} (its handler raising {raising}) chosen at step(s) "
        f"{sorted(interrupter.steps)} of {unit}, counted from 0; delivered at: {where}"
    )


_active: list[Interrupter] = []
"""The interrupters installed, innermost last."""


def steps_in(call: Callable[[], T]) -> tuple[T, int]:
    """``call()``'s result and how many steps it took under the innermost :func:`interrupting`
    block (0 outside one): the implementation's own steps, apart from a check's around them."""
    counter = _active[-1] if _active else None
    before = counter.step if counter is not None else 0
    result = call()
    return result, (counter.step - before if counter is not None else 0)


def require_steps(steps: int, mode: Mode, what: str) -> None:
    """End the test as unobserved when ``what`` took no step the harness could interrupt: in
    ``calls`` mode no call of ``os.<name>`` or ``open`` looked up at call time, in ``lines`` mode
    no line of Python (native code, or calls bound by name, are out of the hooks' sight)."""
    if steps:
        return
    unit = (
        "call of os.<name> or open() the harness could see"
        if mode == "calls"
        else "line of Python the harness could trace"
    )
    unobserved(f"{what} made no {unit}, so no interrupt could be injected into it")


@contextlib.contextmanager
def interrupting(
    steps: Collection[int] = (), mode: Mode = "calls", signum: int = signal.SIGINT
) -> Iterator[Interrupter]:
    """Install an :class:`Interrupter` of ``signum`` over the OS calls (or the lines run), with a
    SIGINT handler that raises KeyboardInterrupt as Python's does (:func:`sigint_handler`: a test
    runner may have replaced it) and, for SIGTERM, one that raises SystemExit
    (:func:`sigterm_handler`) for the block; restore everything after."""
    interrupter = Interrupter(steps, signum)
    saved: list[tuple[object, str, object]] = []
    if mode == "calls":
        saved = [(builtins, "open", builtins.open)]
        saved += [(os, name, getattr(os, name)) for name in OS_CALLS]

    def trace(frame: FrameType, event: str, arg: object) -> Any:  # sys.settrace types it so
        if event == "call" and frame.f_code.co_filename in _UNTRACED:
            return None  # the harness's own lines, as it leaves the block, are not the call's
        if event == "line":
            interrupter.tick(lambda: f"the line at {_place(frame)}")
        return trace

    tracing = sys.gettrace()
    handled = sorted({signal.SIGINT, signum})
    handlers = [(one, signal.signal(one, _HANDLERS[one])) for one in handled]
    collecting = gc.isenabled()
    gc.disable()  # else earlier work's finalizers could run in the block, count, and swallow SIGINT
    try:
        for owner, name, real in saved:
            label = f"{'os' if owner is os else 'open'}{'.' + name if owner is os else ''}"
            setattr(owner, name, interrupter.wrap(real, label))  # type: ignore[arg-type]  # a callable
        if mode == "lines":
            sys.settrace(trace)
        _active.append(interrupter)
        yield interrupter
    finally:
        if _active and _active[-1] is interrupter:
            _active.pop()
        if mode == "lines":
            sys.settrace(tracing)  # only then: a coverage tracer put back by hand would stop
        for owner, name, real in saved:
            setattr(owner, name, real)
        for one, handler in handlers:
            signal.signal(one, handler)
        if collecting:
            gc.enable()


def forget(error: BaseException) -> BaseException:
    """``error`` without the tracebacks of its chain, which keep alive whatever the interrupted
    frames held (an owner the caller never got), as if it had propagated away."""
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__traceback__ = None
        link = link.__cause__ or link.__context__
    return error


def count_steps(
    call: Callable[[], object], mode: Mode = "calls", signum: int = signal.SIGINT
) -> int:
    """How many steps ``call`` takes when nothing interrupts it (with the handlers that
    :func:`interrupting` puts in place for ``signum``)."""
    with interrupting(mode=mode, signum=signum) as counter:
        call()
    return counter.step


def open_descriptors() -> set[int]:
    """This process's open descriptors (from ``/proc/self/fd``; empty where there is none)."""
    try:
        return {int(name) for name in os.listdir("/proc/self/fd")}
    except OSError:
        return set()


def campaign_size(default: int, long: int) -> int:
    """``long`` when the long campaign is asked for (``CORDSPEC_LONG_CAMPAIGN``), else
    ``default``."""
    return long if environment.LONG_CAMPAIGN.get() else default


@dataclass(frozen=True)
class CampaignResult:
    """What a campaign did: runs, how many ended in KeyboardInterrupt, how long it took."""

    runs: int
    interrupted: int
    completed: int
    seconds: float


def campaign(
    runs: int,
    setup: Callable[[int], T],
    call: Callable[[T], object],
    check: Callable[[T, object, BaseException | None], None],
    seed: int = 0,
    mode: Mode = "calls",
    what: str = "the call",
) -> CampaignResult:
    """Run ``call(setup(i))`` ``runs`` times with one or two SIGINTs at random steps.

    ``setup(i)`` makes the state of run ``i`` (a new file, an owner); the steps of ``call`` are
    counted on a first state, then each run interrupts at one step, or at two (the second in the
    clean-up the first one starts). ``check(state, result, error)`` asserts what run left:
    ``error`` is the KeyboardInterrupt raised, or None when ``call`` returned ``result``. Any other
    exception fails the campaign, naming the run and its steps; ``what`` names the call in
    a failure's message.
    """
    rng = random.Random(seed)
    probe = setup(-1)
    with interrupting(mode=mode) as counter:
        probed = call(probe)
    check(probe, probed, None)  # uninterrupted, it must complete, and the check cleans it up
    steps = counter.step
    require_steps(steps, mode, what)
    interrupted = 0
    started = time.perf_counter()
    for run in range(runs):
        first = rng.randrange(steps + 1)
        chosen = {first} if rng.random() < 0.5 else {first, first + rng.randint(1, 12)}
        state = setup(run)
        error: BaseException | None = None
        result: object = None
        interrupter = Interrupter(chosen)
        try:
            with interrupting(chosen, mode) as interrupter:
                result = call(state)
        except KeyboardInterrupt as exc:
            error = forget(exc)
            interrupted += 1
        try:
            check(state, result, error)
        except AssertionError as exc:
            ended = "raised KeyboardInterrupt" if error is not None else "completed"
            raise AssertionError(
                f"{what}, run {run} of a campaign of {runs} (seed {seed}): "
                f"{scenario(interrupter, mode)}; the call {ended}; then: {exc}"
            ) from exc
    return CampaignResult(runs, interrupted, runs - interrupted, time.perf_counter() - started)


def interrupted(call: Callable[[], object], at: int, mode: Mode = "lines") -> bool:
    """Run ``call()`` with SIGINT delivered at its ``at``-th step (1-based). True if the step was
    reached (the KeyboardInterrupt that came out of the call, if one did, is dropped); False if the
    call ended first."""
    with contextlib.suppress(KeyboardInterrupt), interrupting({at - 1}, mode) as interrupter:
        call()
    return interrupter.delivered > 0
