"""Signal deferral: run a step that no Python signal handler may split (SIGINT's, a SIGTERM handler
that raises ``SystemExit``, any other), then hand each deferred signal to its handler and undo the
step if that raises (FBD-INTR-1)."""

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
_set_handler: Callable[[int, _Handler], object] = _signal.signal
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


def _atomically(do: Callable[[], T], undo: Callable[[T], None]) -> T:
    """``do()`` with every signal that has a Python handler deferred (FBD-INTR-1); a signal that
    came meanwhile then goes to the handler it was deferred from, still deferred: if that raises,
    ``undo`` reverses what ``do`` did before the exception propagates. Outside the main thread,
    or where no signal has a Python handler, no handler can split ``do`` and it simply runs.
    Restoring the handlers is the last thing done; a signal whose handler is back before the
    step has returned, and raises, undoes the step too."""
    previous = _python_handlers()
    if not previous:
        return do()
    pending: list[tuple[int, FrameType | None]] = []

    def record(signum: int, frame: FrameType | None) -> None:
        pending.append((signum, frame))

    done = False
    try:
        _replace(previous, record)
        result = do()
        done = True
        while pending:
            signum, frame = pending.pop(0)
            previous[signum](signum, frame)
    except BaseException:
        try:
            if done:  # a deferred signal's handler raised: the step is undone, still deferred
                undo(result)
            elif pending:  # ``do`` failed while a signal was deferred: it is not lost
                signum, frame = pending[0]
                previous[signum](signum, frame)
        finally:
            pending.clear()  # one signal is reported, however many came
            _restore(previous)
        raise
    try:
        _restore(previous)
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


def _each(previous: _Handlers, put: Callable[[int, _Handler], object]) -> None:
    raised: BaseException | None = None
    for signum, handler in previous.items():
        try:
            put(signum, handler)
        except BaseException as exc:  # a handler ran at the check after the C call: go on
            raised = raised or exc  # the first is raised
    if raised is not None:
        raise raised
