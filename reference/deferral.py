"""Signal deferral: run a step that no Python signal handler may split (SIGINT's, a SIGTERM handler
that raises ``SystemExit``, any other), then hand every deferred signal to its handler, in the
order they came, and undo the step if one raises (FBD-INTR-1, FBD-INTR-2); what a handler changes
in signal handling stays changed (FBD-INTR-3)."""

from __future__ import annotations

import importlib
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")
_Handler = Callable[[int, FrameType | None], object]
_Handlers = dict[int, _Handler]
_signal: Any = importlib.import_module("_signal")  # typeshed does not describe ``_signal``
_set_handler: Callable[[int, object], object] = _signal.signal
"""``signal.signal`` without its Python wrapper, in which an interrupt could land after the C
call."""
_get_handler: Callable[[int], object] = _signal.getsignal
"""``signal.getsignal`` without the wrapper that turns numbers into enums: a step costs one look
per signal, so the look must be cheap."""
_SIGNALS = tuple(
    int(signum)
    for signum in signal.valid_signals()
    if signum not in (signal.SIGKILL, signal.SIGSTOP)  # no handler can be put on these
)
"""Every signal a handler can be put on, by number."""


class _Deferral:
    """The handler put on every deferred signal: while active it records each signal that comes;
    ``deliver`` hands them on. ``handlers`` is what each signal's handler is, as the program sees
    it: the one deferred from, or whatever a handler run since has put in its place (FBD-INTR-3).
    A handler that calls ``signal.signal`` gets this deferral back as the previous handler, where
    the one deferred from stood: put back after the step, it hands each signal to that one."""

    def __init__(self, handlers: _Handlers) -> None:
        self.original = dict(handlers)
        self.handlers: dict[int, object] = dict(handlers)
        self.pending: list[tuple[int, FrameType | None]] = []
        self.active = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.active:
            self.pending.append((signum, frame))
        else:
            self.original[signum](signum, frame)

    def begin(self) -> None:
        """Put this deferral on every signal of ``handlers``: see ``_replace``."""
        self.active = True
        _each(self.handlers, lambda signum, _: _set_handler(signum, self))

    def deliver(self) -> None:
        """Hand every recorded signal to its handler, in the order they came, still deferred.
        When one raises, the rest still run before its exception propagates, as CPython runs
        them at its next check: one that raises too propagates with the first as its context
        (FBD-INTR-2)."""
        while self.pending:
            signum, frame = self.pending.pop(0)
            try:
                try:
                    self._hand(signum, frame)
                finally:
                    self._adopt()  # before the next signal, which meets what this one left
            except BaseException:
                self.deliver()  # one raised inside this ``except``: Python chains it to this one
                raise

    def end(self) -> None:
        """Put back, on every signal still deferred here, the handler the program now has for
        it, then hand on what came meanwhile. Every handler is put back even when one put back a
        moment ago runs and raises; that exception is raised after the last (``_each``)."""
        try:
            _each(
                {s: h for s, h in self.handlers.items() if _get_handler(s) is self},
                _set_handler,
            )
        finally:
            self.active = False  # after: a signal that came as its handler was put back is here
            self.deliver()

    def _hand(self, signum: int, frame: FrameType | None) -> None:
        """What the signal would have met had it not been deferred: the handler the program has
        now for it; ``SIG_IGN`` drops it; the default action (or a handler set from C) is the
        signal's own, raised again (FBD-INTR-3: "a second Ctrl-C forces quit" quits)."""
        handler = self.handlers[signum]
        if callable(handler):
            handler(signum, frame)
        elif handler != signal.SIG_IGN:
            signal.raise_signal(signum)  # pragma: no cover  # the suite's race or fault

    def _adopt(self) -> None:
        """After a handler ran: what it put on any signal is what the program has there now
        (FBD-INTR-3). A Python handler it put on is recorded and deferred over the rest of the
        step; ``SIG_DFL`` or ``SIG_IGN`` stays in place, as the program asked."""
        for signum in _SIGNALS:
            current = _get_handler(signum)
            if current is self:
                continue
            if callable(current):
                self.handlers[signum] = current
                if self.active:
                    _set_handler(signum, self)
            elif signum in self.handlers:
                self.handlers[signum] = current


def _atomically(
    do: Callable[[], T], undo: Callable[[T], None], deferral: type[_Deferral] = _Deferral
) -> T:
    """``do()`` with every signal that has a Python handler deferred (FBD-INTR-1); the signals
    that came meanwhile then go, in order, to their handlers, still deferred: if one raises,
    ``undo`` reverses what ``do`` did before the exception propagates. Outside the main thread,
    or where no signal has a Python handler, no handler can split ``do`` and it simply runs.
    Restoring the handlers is the last thing done; a signal whose handler is back before the
    step has returned, and raises, undoes the step too."""
    previous = _python_handlers()
    if not previous:
        return do()
    deferred = deferral(previous)
    done = False
    try:
        deferred.begin()
        result = do()
        done = True
        deferred.deliver()
    except BaseException:
        try:
            if done:  # a deferred signal's handler raised: the step is undone, still deferred
                undo(result)
        finally:
            deferred.end()  # what came during the undo, or before ``do`` failed, is not lost
        raise
    try:
        deferred.end()
        return result  # in the ``try``: a signal at this line, its handler back, undoes the step
    except BaseException:  # a handler put back came before the step returned, and raised
        undo(result)
        raise


def _python_handlers() -> _Handlers:
    """Every signal's handler that is Python code this thread may replace, by signal number:
    SIGINT's (Python's own raises ``KeyboardInterrupt``) and any the program installed."""
    if threading.current_thread() is not threading.main_thread():
        return {}  # handlers run in the main thread only: no other thread can be split by one
    found: _Handlers = {}
    for signum in _SIGNALS:
        handler = _get_handler(signum)
        if callable(handler):
            found[signum] = handler
    return found


def _replace(previous: _Handlers, handler: _Handler) -> None:
    """Put ``handler`` on every signal of ``previous``. Each is put even when a signal not yet
    replaced comes meanwhile and its handler raises; that exception is raised after the last."""
    _each(previous, lambda signum, _: _set_handler(signum, handler))


def _restore(previous: _Handlers) -> None:
    """Put every handler of ``previous`` back, all of them even when one put back a moment ago
    runs and raises (a signal came between two); that exception is raised after the last."""
    _each(previous, _set_handler)


def _each(previous: dict[int, Any], put: Callable[[int, Any], object]) -> None:
    raised: BaseException | None = None
    for signum, handler in previous.items():
        try:
            put(signum, handler)
        except BaseException as exc:  # a handler ran at the check after the C call: go on
            raised = raised or exc  # the first is raised
    if raised is not None:
        raise raised
