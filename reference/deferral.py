"""Signal deferral: run a step that no Python signal handler may split, then hand the deferred
signal to its handler and undo the step if that raises (FBD-INTR-1)."""

from __future__ import annotations

import importlib
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

T = TypeVar("T")
_Handler = Callable[[int, FrameType | None], object]
_set_sigint: Callable[[int, _Handler], object] = importlib.import_module("_signal").signal
"""``signal.signal`` without its Python wrapper, in which an interrupt could land after the C
call (typeshed does not describe ``_signal``)."""


def _atomically(do: Callable[[], T], undo: Callable[[T], None]) -> T:
    """``do()`` with SIGINT deferred (FBD-INTR-1); a SIGINT that came meanwhile then goes to the
    handler it was deferred from, still deferred: if that raises, ``undo`` reverses what ``do``
    did before the exception propagates. Outside the main thread, or where SIGINT has no Python
    handler, no interrupt can split ``do`` and it simply runs. Restoring the handler is the last
    thing done, so nothing of this call is left to run after it."""
    previous = _python_handler()
    if previous is None:
        return do()
    pending: list[tuple[int, FrameType | None]] = []
    _set_sigint(signal.SIGINT, lambda signum, frame: pending.append((signum, frame)))
    try:
        result = do()
        while pending:
            try:
                previous(*pending.pop(0))
            except BaseException:
                pending.clear()  # one interrupt is reported, however many came
                undo(result)
                raise
        return result
    except BaseException:
        if pending:  # ``do`` failed while an interrupt was deferred: it is not lost
            previous(*pending.pop(0))
        raise
    finally:
        _set_sigint(signal.SIGINT, previous)


def _python_handler() -> Callable[[int, FrameType | None], object] | None:
    """SIGINT's handler when it is Python code this thread may replace; else None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGINT)
    return handler if callable(handler) else None
