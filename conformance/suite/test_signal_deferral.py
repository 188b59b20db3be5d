"""Signals deferred over move_from, the owning constructor and close() (FBD-INTR-1) reach their
handlers as they would have without the deferral: every one, in order, also when one raises
(FBD-INTR-2), and what a handler changes in signal handling stays changed (FBD-INTR-3).

At each step of each call (before and after each OS call) the signals are raised for real, one
after the other: an implementation that defers nothing runs each handler at once, the next while
the first's exception unwinds, as CPython would; one that defers must hand them on the same way.
"""

from __future__ import annotations

import contextlib
import gc
import shutil
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from conformance.api import Implementation
from conformance.harness.child import child_script, run_child
from conformance.harness.interrupts import forget
from conformance.harness.steps import at_step, count_calls_steps, raise_in_sequence

clause = pytest.mark.clause
requires = pytest.mark.requires

DATA = b"weights " * 512
CALLS = pytest.mark.parametrize("call", ["move_from", "constructor", "close"])
RELIES = pytest.mark.relies_on("FBD-MOVE-1", "FBD-INIT-3", "FBD-CLOSE-1")
"""The three calls do what they are for: each run is judged on the handlers only."""
Handler = Callable[[int, FrameType | None], Any]


@dataclass
class Record:
    """What the handlers saw, in order."""

    seen: list[str] = field(default_factory=list)
    after: object = None
    installed: object = None

    def handler(self, name: str, raises: BaseException | None = None) -> Handler:
        def handle(signum: int, frame: FrameType | None) -> None:
            self.seen.append(name)
            if raises is not None:
                raise raises

        return handle


@contextlib.contextmanager
def handlers(installed: dict[int, Handler]) -> Iterator[None]:
    """``installed`` over the block; every signal's handler before it put back after."""
    touched = [signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, *installed]
    saved: dict[int, Any] = {signum: signal.getsignal(signum) for signum in touched}
    try:
        for signum, handler in installed.items():
            signal.signal(signum, handler)
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def subject(impl: Implementation, call: str, directory: Path) -> Callable[[], object]:
    """A fresh run of ``call`` in ``directory``: the call to make, its file made beforehand."""
    source = directory / "weights.bin"
    source.write_bytes(DATA)
    if call == "move_from":
        return lambda: impl.FileBackedData.move_from(str(source))
    if call == "constructor":
        return lambda: impl.FileBackedData(str(source), cleanup=True)
    owner = impl.FileBackedData.move_from(str(source))
    return owner.close


def each_step(
    impl: Implementation,
    call: str,
    base: Path,
    installed: Callable[[Record], dict[int, Handler]],
    signals: tuple[int, ...],
    judge: Callable[[Record, BaseException | None, str], None],
) -> int:
    """Run ``call`` once per step, ``signals`` raised in sequence at that step with the handlers
    ``installed(record)`` in place; ``judge(record, error, where)`` each run whose step came,
    where ``record.after`` is SIGINT's handler once the call has returned or raised. How many
    runs were judged."""
    probe = base / "probe"
    probe.mkdir()
    steps = count_calls_steps(lambda: _close(subject(impl, call, probe)()))
    shutil.rmtree(probe)
    judged = 0
    for step in range(steps + 1):
        directory = base / f"run{step}"
        directory.mkdir()
        run = subject(impl, call, directory)
        record = Record()
        error: BaseException | None = None
        made: object = None
        with handlers(installed(record)):
            try:
                with at_step(step, lambda: raise_in_sequence(*signals)) as counter:
                    made = run()
            except BaseException as exc:  # judged below: KeyboardInterrupt, SystemExit
                error = forget(exc)
            record.after = signal.getsignal(signal.SIGINT)
        where = (
            f"{call}, the signals raised at step {step} of its {steps} (before/after each OS call)"
        )
        if counter.fired:
            judged += 1
            judge(record, error, where)
        _close(made)
        gc.collect()
        shutil.rmtree(directory)
    return judged


def _close(made: object) -> None:
    """Close what a call made (an owner), if anything; an error of that is not this test's."""
    close = getattr(made, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()


@requires("file-backed")
class TestEverySignalRuns:
    @clause("FBD-INTR-2")
    @RELIES
    @CALLS
    @pytest.mark.parametrize(
        "first", [signal.SIGINT, signal.SIGUSR1], ids=["SIGINT-then-SIGUSR1", "SIGUSR1-then-SIGINT"]
    )
    def test_a_raising_handler_does_not_drop_the_others(
        self, impl: Implementation, tmp_path: Path, call: str, first: int
    ) -> None:
        """SIGINT (raising KeyboardInterrupt) and SIGUSR1 (a handler that only records), one
        after the other: both handlers run, in that order, and KeyboardInterrupt propagates."""
        order = (first, signal.SIGUSR1 if first == signal.SIGINT else signal.SIGINT)
        names: dict[int, str] = {signal.SIGINT: "SIGINT", signal.SIGUSR1: "SIGUSR1"}

        def installed(record: Record) -> dict[int, Handler]:
            return {
                signal.SIGINT: record.handler("SIGINT", KeyboardInterrupt()),
                signal.SIGUSR1: record.handler("SIGUSR1"),
            }

        def judge(record: Record, error: BaseException | None, where: str) -> None:
            expected = [names[s] for s in order]
            assert record.seen == expected, (
                f"{where}: the handlers that ran were {record.seen}, expected {expected}: every "
                "deferred signal must reach its handler, in order, even when one raises"
            )
            assert isinstance(error, KeyboardInterrupt), f"{where}: raised {error!r}"

        assert each_step(impl, call, tmp_path, installed, order, judge) > 0

    @clause("FBD-INTR-2")
    @RELIES
    @CALLS
    def test_two_raising_handlers_both_run_and_chain(
        self, impl: Implementation, tmp_path: Path, call: str
    ) -> None:
        """SIGINT (KeyboardInterrupt) then SIGTERM (SystemExit): both run, and what propagates is
        SystemExit with the KeyboardInterrupt as its context, as in CPython."""

        def installed(record: Record) -> dict[int, Handler]:
            return {
                signal.SIGINT: record.handler("SIGINT", KeyboardInterrupt()),
                signal.SIGTERM: record.handler("SIGTERM", SystemExit(143)),
            }

        def judge(record: Record, error: BaseException | None, where: str) -> None:
            assert record.seen == ["SIGINT", "SIGTERM"], (
                f"{where}: the handlers that ran were {record.seen}, expected both, in order"
            )
            assert isinstance(error, SystemExit), (
                f"{where}: raised {error!r}, expected the last handler's SystemExit"
            )
            assert isinstance(error.__context__, KeyboardInterrupt), (
                f"{where}: SystemExit's context is {error.__context__!r}, expected the "
                "KeyboardInterrupt raised before it"
            )

        assert each_step(impl, call, tmp_path, installed, (signal.SIGINT, signal.SIGTERM), judge)


@requires("file-backed")
class TestHandlersChangesStay:
    @clause("FBD-INTR-3")
    @RELIES
    @CALLS
    @pytest.mark.parametrize("new", ["handler", "SIG_IGN"])
    def test_what_a_handler_installs_stays(
        self, impl: Implementation, tmp_path: Path, call: str, new: str
    ) -> None:
        """Two SIGINTs: the first one's handler installs another disposition for SIGINT (a
        handler; ``SIG_IGN``) and raises; the second meets that disposition, and it is still
        installed after the call."""

        def installed(record: Record) -> dict[int, Handler]:
            second = record.handler("second")
            disposition = second if new == "handler" else signal.SIG_IGN

            def first(signum: int, frame: FrameType | None) -> None:
                record.seen.append("first")
                record.installed = disposition
                signal.signal(signal.SIGINT, disposition)
                raise KeyboardInterrupt

            return {signal.SIGINT: first}

        def judge(record: Record, error: BaseException | None, where: str) -> None:
            expected = ["first", "second"] if new == "handler" else ["first"]
            assert record.seen == expected, (
                f"{where}: the handlers that ran were {record.seen}, expected {expected}: the "
                "second SIGINT must meet what the first one's handler installed"
            )
            assert record.after == record.installed, (
                f"{where}: after the call SIGINT's handler is {record.after!r}; the first "
                f"SIGINT's handler installed {record.installed!r}, which must stay"
            )
            assert isinstance(error, KeyboardInterrupt), f"{where}: raised {error!r}"

        signals = (signal.SIGINT, signal.SIGINT)
        assert each_step(impl, call, tmp_path, installed, signals, judge) > 0

    @clause("FBD-INTR-3")
    @pytest.mark.relies_on("FBD-MOVE-1")
    @requires("subprocess")
    def test_a_second_ctrl_c_forces_quit(self, impl: Implementation, tmp_path: Path) -> None:
        """In a child: the first SIGINT's handler installs ``SIG_DFL`` and raises; both SIGINTs
        come just after move_from's rename. The second one ends the process, by SIGINT."""
        run = run_child(impl, _SECOND_CTRL_C, tmp_path, "quit", fresh=True)
        for left in tmp_path.iterdir():  # a process a signal ends leaves its files (section 7)
            left.unlink()
        assert run.returncode == -signal.SIGINT, (
            "the first SIGINT's handler installed SIG_DFL, so the second must end the process "
            f"by SIGINT; it exited with {run.returncode}, printing {run.lines}; "
            f"stderr:\n{run.stderr}"
        )


_SECOND_CTRL_C = child_script(
    r"""
import signal
with open(source, "wb") as f:
    f.write(b"weights")

def graceful(signum, frame):
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C forces quit
    raise KeyboardInterrupt

signal.signal(signal.SIGINT, graceful)
real_replace = os.replace

def replace(src, dst, **kwargs):
    real_replace(src, dst, **kwargs)
    try:
        signal.raise_signal(signal.SIGINT)
    finally:
        signal.raise_signal(signal.SIGINT)

os.replace = replace
try:
    impl.FileBackedData.move_from(source)
except KeyboardInterrupt:
    print("the second SIGINT went to the graceful handler")
else:
    print("move_from completed")
"""
)
