"""Bounded probes: a call run in a thread of its own, waited for a bounded time, that says what it
waited for and why it gave up. A probe that finds a lock stranded (an interrupt left a lock the
implementation takes held, so another thread's call never returns) records it: a later probe in
the same process that waits in vain blames that, not its own test's clauses, since the process is
then no place to judge anything that takes the lock."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import NoReturn, TypeVar

from .checks import check
from .observe import unobserved

__all__ = ["PROBE_SECONDS", "bounded", "follow_up", "gave_up", "stranded"]

T = TypeVar("T")

PROBE_SECONDS = 10.0
"""How long a probe waits: far more than any call it makes takes (milliseconds)."""

stranded: list[str] = []
"""The stranded locks found in this process, each as the probe that found it said it."""


class _Probe(threading.Thread):
    def __init__(self, call: Callable[[], object]) -> None:
        super().__init__(name="cordspec-probe", daemon=True)  # a hung one ends with the process
        self.call = call
        self.result: list[object] = []
        self.error: list[BaseException] = []

    def run(self) -> None:
        try:
            self.result.append(self.call())
        except BaseException as exc:  # handed to the test's thread
            self.error.append(exc)


def bounded(call: Callable[[], T], what: str, why: str, seconds: float = PROBE_SECONDS) -> T:
    """``call()`` run in a thread of its own and waited for ``seconds``: its result, or what it
    raised. A call still running then ends the test: unobserved if a lock was found stranded in
    this process before (this probe cannot judge its clauses there), else failed (the test's
    clauses) saying ``what`` it waited for and ``why``."""
    probe = _Probe(call)
    probe.start()
    probe.join(seconds)
    if probe.is_alive():
        gave_up(f"{what} had not finished after {seconds:g} s (waited for it {why}); it is left "
                "running in a daemon thread")  # fmt: skip
    if probe.error:
        raise probe.error[0]
    return probe.result[0]  # type: ignore[return-value]  # what call() returned


def gave_up(said: str) -> NoReturn:
    """End the test for a wait that ran out (``said`` says what was waited for and why): as
    unobserved if a lock was found stranded in this process before, else as a failure."""
    if stranded:
        unobserved(f"{said}; an earlier probe in this process found a lock stranded: {stranded[0]}")
    raise AssertionError(said)


def follow_up(
    call: Callable[[], object], after: str, clause: str, seconds: float = PROBE_SECONDS
) -> None:
    """After ``after`` (an interrupt injected into a call): ``call``, another operation that takes
    the implementation's locks, must finish in a thread of its own within ``seconds``; else a lock
    was left held, which fails ``clause`` and is recorded (:data:`stranded`)."""
    probe = _Probe(call)
    probe.start()
    probe.join(seconds)
    if probe.is_alive():
        said = (
            f"after {after}, a move_from and close() in another thread had not finished after "
            f"{seconds:g} s: a lock the implementation takes was left held"
        )
        if stranded:  # left held before this test: its own interrupts are not to blame
            gave_up(said)
        stranded.append(f"{said} ({os.environ.get('PYTEST_CURRENT_TEST', 'a test')})")
        check(False, said, clause)
    if probe.error:
        raise AssertionError(f"after {after}, the follow-up move_from and close() in another "
                             f"thread raised {probe.error[0]!r}") from probe.error[0]  # fmt: skip
