"""Interrupts: SIGINT, and SIGTERM with a handler that raises ``SystemExit``, at every step of
move_from, the owning constructor, close() and interpreter exit, and forks while another thread is
inside move_from (FBD-INTR-1, FBD-FORK-2).

Steps are injected deterministically (conformance.harness.interrupts): before and after every OS
call, or at every line the call runs, once or twice. The campaigns repeat that at random steps;
``CORDSPEC_LONG_CAMPAIGN=1`` gives the long counts (10,000 moves, 3,000 constructions and
closes, 400 forks).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.checks import check
from conformance.harness.child import child_script, run_child
from conformance.harness.forks import bounded_wait, fork_threaded
from conformance.harness.helpers import shm_directory
from conformance.harness.interrupts import (
    Interrupter,
    Mode,
    campaign,
    campaign_size,
    count_steps,
    forget,
    interrupting,
    open_descriptors,
    raised_by,
    require_steps,
    scenario,
    steps_in,
)
from conformance.harness.probes import bounded, follow_up, gave_up
from conformance.suite.line_trap import LineTrap

clause = pytest.mark.clause
requires = pytest.mark.requires
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")
needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")

S = TypeVar("S")
Test = TypeVar("Test", bound=Callable[..., None])
DATA = b"weights " * 512
MODES: tuple[Mode, ...] = ("calls", "lines")
SIGNALS = pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"]
)
"""The signals injected at each step: SIGINT (Python's handler raises KeyboardInterrupt) and
SIGTERM with a handler that raises SystemExit (graceful-shutdown code): FBD-INTR-1 covers every
Python handler that raises."""


@dataclass
class Case:
    """One run's directory with one source file in it, and the descriptors open before it."""

    directory: Path
    source: Path
    descriptors: set[int] = field(default_factory=open_descriptors)


@contextlib.contextmanager
def scrubbed(directory: Path) -> Iterator[None]:
    """On a failure, remove what the failed run left below ``directory`` (placeholders among it),
    so that the failure is reported once, as itself."""
    try:
        yield
    except BaseException:
        gc.collect()
        for child in directory.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
        raise


def _case(base: Path, run: int) -> Case:
    directory = base / f"run{run}"
    directory.mkdir(parents=True)
    source = directory / "weights.bin"
    source.write_bytes(DATA)
    return Case(directory, source)


def _finish(case: Case) -> None:
    """No descriptor is left open by the run; its directory goes."""
    leaked = open_descriptors() - case.descriptors
    shutil.rmtree(case.directory)
    assert not leaked, f"descriptor(s) left open: {sorted(leaked)}"


def _check_owner(impl: Implementation, case: Case, owner: object, moved: bool) -> None:
    """``owner`` holds DATA, is the only file besides (for the constructor) nothing, and its
    release removes it."""
    assert owner is not None, "the call neither returned an owner nor raised"
    blob: FileBackedData = owner  # type: ignore[assignment]  # what the call returned
    path = Path(impl.path_of(blob))
    found = sorted(os.listdir(case.directory))
    assert found == [path.name], (
        f"the call completed, so its owner's file {path.name} was expected alone in the "
        f"directory; found {found}"
    )
    assert path.read_bytes() == DATA, f"the owned file {path.name} does not hold the source's bytes"
    if moved:
        assert not case.source.exists(), "move_from completed, but the source is still at its path"
    blob.close()
    left = os.listdir(case.directory)
    assert left == [], f"closing the completed call's owner {path.name} left {sorted(left)}"


def _check_untouched(case: Case) -> None:
    """After the handler's exception: the source alone, at its path, with its bytes, unowned."""
    gc.collect(1)  # an owner the caller never got (its traceback dropped) must not delete it now
    found = sorted(os.listdir(case.directory))
    assert found == ["weights.bin"], (
        "the call raised the handler's exception, so it must have undone itself: expected the "
        "source weights.bin alone in the directory (no placeholder, nothing deleted); "
        f"found {found}"
    )
    assert case.source.read_bytes() == DATA, "the source is back, but not with its bytes"


def mover(impl: Implementation) -> Callable[[Case], FileBackedData]:
    def move(case: Case) -> FileBackedData:
        return impl.FileBackedData.move_from(str(case.source))

    return move


def owner(impl: Implementation) -> Callable[[Case], FileBackedData]:
    def own(case: Case) -> FileBackedData:
        return impl.FileBackedData(str(case.source), cleanup=True)

    return own


def in_directory(base: Path) -> Callable[[int], Case]:
    return lambda run: _case(base, run)


OWNING_CALL = "FileBackedData(source, cleanup=True)"


def _follow_up_move(impl: Implementation, base: Path) -> None:
    """A move_from and close() of a file of its own: what a follow-up probe runs."""
    directory = base / "follow-up"
    directory.mkdir(exist_ok=True)
    source = directory / "other.bin"
    source.write_bytes(DATA)
    impl.FileBackedData.move_from(str(source)).close()


def followed(
    check: Callable[[S, object, BaseException | None], None],
    impl: Implementation,
    base: Path,
    what: str,
) -> Callable[[S, object, BaseException | None], None]:
    """``check``, then a follow-up move_from and close() in another thread, which must finish:
    an interrupt that left a lock the implementation takes held fails FBD-INTR-1 there, however
    complete the interrupted call's own outcome looks."""

    def checked(state: S, result: object, error: BaseException | None) -> None:
        check(state, result, error)
        ended = f"raised {type(error).__name__}" if error is not None else "completed"
        follow_up(
            lambda: _follow_up_move(impl, base),
            f"an interrupted run of {what} (it {ended})",
            "FBD-INTR-1",
        )

    return checked


def close_it(owned: Owned) -> None:
    owned.blob.close()


def check_taken(
    impl: Implementation, *, moved: bool
) -> Callable[[Case, object, BaseException | None], None]:
    """Judge one run of a call that takes the source (``move_from`` when ``moved``, else the
    owning constructor): its owner if it returned, the source untouched if it raised."""

    def check(case: Case, result: object, error: BaseException | None) -> None:
        if error is None:
            _check_owner(impl, case, result, moved=moved)
        else:
            _check_untouched(case)
            if not moved:
                impl.FileBackedData(str(case.source), cleanup=True).close()  # nobody owns it
                assert not case.source.exists()
        _finish(case)

    return check


def _take_interrupted_at_each_step(
    impl: Implementation,
    scratch: Path,
    mode: Mode,
    signum: int,
    take: tuple[
        Callable[[Case], FileBackedData], Callable[[Case, object, BaseException | None], None], str
    ],
) -> None:
    """Interrupt ``take`` (the call that takes a file over, the check of each run's outcome, and
    how a message names the call) at each of its steps, counted in a first uninterrupted run."""
    call, check_run, what = take
    with scrubbed(scratch):
        runs = iter(range(1 << 30))
        probe = _case(scratch, -1)
        taken: list[int] = []

        def counted(made: Case) -> FileBackedData:
            result, steps = steps_in(lambda: call(made))
            taken.append(steps)
            return result

        steps = count_steps(lambda: check_run(probe, counted(probe), None), mode, signum)
        require_steps(taken[0], mode, what)
        done = _run_each(
            f"{what}, at each of its {steps} steps",
            _every_step(steps, mode),
            mode,
            lambda: _case(scratch, next(runs)),
            call,
            followed(check_run, impl, scratch, what),
            signum,
        )
        assert done > steps


@dataclass
class Owned:
    """An owner made for a run of close(), and its run's case."""

    case: Case
    blob: FileBackedData
    path: Path


def _owned(impl: Implementation, base: Path, run: int) -> Owned:
    case = _case(base, run)
    blob = impl.FileBackedData.move_from(str(case.source))
    return Owned(case, blob, Path(impl.path_of(blob)))


def check_close(owned: Owned, result: object, error: BaseException | None) -> None:
    """Interrupted or not, close() has released the file (it is gone and the object closed), or,
    interrupted before it began, left the object open with its file; never one without the other."""
    try:
        if error is not None and owned.path.exists():  # not begun: open, and its file whole
            assert len(owned.blob) == len(DATA), (
                f"close() raised KeyboardInterrupt and left the owned file {owned.path.name}, "
                "so it must not have begun: expected the object open; it is closed"
            )
            assert owned.path.read_bytes() == DATA
        else:
            ended = "raised KeyboardInterrupt" if error is not None else "completed"
            assert not owned.path.exists(), (
                f"close() {ended} with the object closed, so its release must be complete: "
                f"expected {owned.path.name} removed; it is still there"
            )
            with pytest.raises(ValueError):  # FBD-CLOSED-1: the object is closed
                len(owned.blob)
    finally:
        owned.blob.close()
        del owned.blob
    assert os.listdir(owned.case.directory) == []
    _finish(owned.case)


def _every_step(steps: int, mode: Mode, within: int = 8) -> Iterator[set[int]]:
    """Every single step, then (for "calls") every pair of a step and one up to ``within`` later."""
    for first in range(steps + 1):
        yield {first}
    if mode == "calls":
        for first in range(steps + 1):
            for later in range(1, within + 1):
                yield {first, first + later}


def _run_each(
    what: str,
    chosen: Iterator[set[int]],
    mode: Mode,
    setup: Callable[[], S],
    call: Callable[[S], object],
    check: Callable[[S, object, BaseException | None], None],
    signum: int = signal.SIGINT,
) -> int:
    """Run ``call`` (``what``, for messages) once for each set of steps in ``chosen``, with
    ``signum`` at those steps, and check each outcome; a failure names the scenario."""
    runs = 0
    for steps in chosen:
        state = setup()
        result: object = None
        error: BaseException | None = None
        interrupter = Interrupter(steps, signum)
        try:
            with interrupting(steps, mode, signum) as interrupter:
                result = call(state)
        except raised_by(signum) as exc:
            error = forget(exc)
        try:
            check(state, result, error)
        except AssertionError as exc:
            ended = f"raised {type(error).__name__}" if error is not None else "completed"
            raise AssertionError(
                f"{what}: {scenario(interrupter, mode)}; the call {ended}; then: {exc}"
            ) from exc
        runs += 1
    return runs


# --- each step -----------------------------------------------------------------------------------


_TWENTY_OWNERS = r"""
owners = []
for i in range(20):
    path = os.path.join(directory, f"owned{i}.bin")
    with open(path, "wb") as f:
        f.write(b"x" * 1000)
    owners.append(impl.FileBackedData.move_from(path) if i % 2 else
                  impl.FileBackedData(path, cleanup=True))
"""
"""Twenty owned files of 1000 bytes in ``directory``, half moved, half owned by the constructor:
what the exit tests release under a signal."""


_EXIT_UNDER_INTERRUPTS = child_script(
    r"""
import signal
# Python's handler, also where this process started with SIGINT ignored (as a background job does)
signal.signal(signal.SIGINT, signal.default_int_handler)
"""
    + _TWENTY_OWNERS
    + r"""print(len(os.listdir(directory)))

def interrupted(real):
    def call(*args, **kwargs):
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, None)  # the second Ctrl-C, while the files are released
        return real(*args, **kwargs)
    return call

os.unlink, os.remove = interrupted(os.unlink), interrupted(os.remove)
raise KeyboardInterrupt  # the first Ctrl-C: the interpreter exits, releasing the owned files
"""
)


_EXIT_UNDER_SIGTERM = child_script(
    r"""
import signal

def graceful(signum, frame):
    sys.exit(143)  # graceful-shutdown code: a SIGTERM handler that raises SystemExit

signal.signal(signal.SIGTERM, graceful)
"""
    + _TWENTY_OWNERS
    + r"""print(len(os.listdir(directory)), flush=True)
sent = []

def terminated(real):
    def call(*args, **kwargs):
        handler = signal.getsignal(signal.SIGTERM)
        if not sent and callable(handler):
            sent.append(1)
            handler(signal.SIGTERM, None)  # one SIGTERM, while the owned files are released
        return real(*args, **kwargs)
    return call

os.unlink, os.remove = terminated(os.unlink), terminated(os.remove)
# the script ends: the interpreter exits normally, releasing the owned files
"""
)


# --- forks while another thread is inside move_from -----------------------------------------------


class _Paused(LineTrap):
    """A thread running ``move_from`` that stops at its ``line``-th traced line until released."""

    def __init__(self, impl: Implementation, source: Path, line: int) -> None:
        super().__init__(line, hold=30)
        self.result: list[FileBackedData] = []
        self.thread = threading.Thread(target=self._run, args=(impl, source), daemon=True)

    def _run(self, impl: Implementation, source: Path) -> None:
        sys.settrace(self._trace)
        try:
            self.result.append(impl.FileBackedData.move_from(str(source)))
        finally:
            sys.settrace(None)
            self.reached.set()


def _fork_during_move(impl: Implementation, base: Path, line: int, timeout: float) -> str | None:
    """Fork while another thread is paused at ``line`` of a move_from; the child must take a
    file of its own and release it within ``timeout``. Returns what went wrong, or None."""
    directory = base / f"line{line}"
    directory.mkdir()
    (directory / "parent.bin").write_bytes(DATA)
    (directory / "child.bin").write_bytes(DATA)
    paused = _Paused(impl, directory / "parent.bin", line)
    paused.thread.start()
    try:
        if not paused.reached.wait(30):
            gave_up(
                f"a move_from in a thread of its own had not reached its line {line} after 30 s "
                f"(it ran {paused.count}): waited for it to fork while it was paused there"
            )
        pid = fork_threaded()
        if pid == 0:  # pragma: no cover - the child; it must never return into pytest
            code = 1
            try:
                impl.FileBackedData.move_from(str(directory / "child.bin")).close()
                code = 0
            finally:
                os._exit(code)
        status = bounded_wait(pid, timeout)
        if status is None:
            return (
                f"a child forked while another thread of the parent was paused at line {line} of "
                f"its move_from: the child's own move_from and close() had not completed after "
                f"{timeout} s (killed), expected them to take no lock the parent's thread held"
            )
        return (
            None
            if status == 0
            else f"a child forked while another thread of the parent was paused at line "
            f"{line} of its move_from: the child's own move_from and close() failed "
            f"(exit status {status}), expected them to complete"
        )
    finally:
        paused.release.set()
        paused.thread.join(30)
        if paused.thread.is_alive():
            gave_up(
                f"a move_from in a thread of its own, released at its line {line}, had not "
                "finished after 30 s: waited for it to close what it took"
            )
        for blob in paused.result:
            blob.close()
        shutil.rmtree(directory)


def _lines_of_a_move(impl: Implementation, base: Path) -> int:
    """How many lines the paused thread traces in a whole move_from."""
    source = base / "probe.bin"
    source.write_bytes(DATA)
    probe = _Paused(impl, source, 0)
    bounded(
        lambda: probe._run(impl, source),
        "move_from(source) in a thread of its own, traced line by line",
        "to count the lines of a move_from, at each of which a fork is then made",
        30,
    )
    probe.result.pop().close()  # _run appended what move_from returned, or bounded raised
    return probe.count


# --- campaigns ---------------------------------------------------------------------------------


def _report(request: pytest.FixtureRequest, name: str, done: object) -> None:
    """Record a campaign's figures on the test (as ``record_property`` would, without its
    warning under ``--junitxml``'s default xunit2 family) and print them."""
    request.node.user_properties.append((name, repr(done)))
    print(f"{name}: {done}")


OBSERVED_BY_CLOSING = pytest.mark.relies_on("FBD-CLOSE-1", "FBD-CLOSE-2", "FBD-CLOSED-1")
"""How a run is judged: an owner's close() deletes its file, a second close() is harmless, and a
closed object raises."""
MOVED = pytest.mark.relies_on("FBD-MOVE-1", "FBD-MOVE-2")  # the owner has the file, beside it
OWNING = pytest.mark.relies_on("FBD-INIT-3")  # the constructor owns; an unowned file is owned so


def at_each_step(test: Test) -> Test:
    """Run a campaign where /proc shows the descriptors it leaves, once for each signal injected
    (SIGNALS) and each way of stepping through the call (MODES)."""
    stepped: Test = needs_proc(SIGNALS(pytest.mark.parametrize("mode", MODES)(test)))
    return stepped


SCRATCH_ROOM = 64 << 20
"""Free space /dev/shm must have to hold the scratch directories (each run's files are 4 KiB)."""


@pytest.mark.requires("file-backed")
class TestInterrupts:
    """move_from, the owning constructor, close and exit interrupted at each step, and forks
    during moves."""

    @pytest.fixture
    def scratch(self, tmp_path: Path) -> Iterator[Path]:
        """Where the tests that make and remove files at each of thousands of steps keep them: a
        directory in tmpfs (``/dev/shm``) when there is one with room, else ``tmp_path``. They test
        what an interrupt or a fork does to ``move_from`` and ``close()``, which no filesystem
        changes; on a journalling filesystem on a virtual disk a file made and removed costs about
        0.5 ms (in tmpfs 0.03 ms), most of these tests' time."""
        with contextlib.ExitStack() as held:
            try:
                directory = held.enter_context(shm_directory(SCRATCH_ROOM))
            except OSError:  # no /dev/shm, or no room there: the test directory serves
                directory = tmp_path
            yield directory

    @clause("FBD-INTR-1")
    @OBSERVED_BY_CLOSING
    @MOVED
    @at_each_step
    def test_move_from_interrupted_at_each_step(
        self, impl: Implementation, scratch: Path, mode: Mode, signum: int
    ) -> None:
        """Interrupted anywhere, once or in its clean-up again: moved and owned, or untouched."""
        take = (mover(impl), check_taken(impl, moved=True), "move_from(source)")
        _take_interrupted_at_each_step(impl, scratch, mode, signum, take)

    @clause("FBD-INTR-1")
    @OBSERVED_BY_CLOSING
    @OWNING
    @at_each_step
    def test_owning_constructor_interrupted_at_each_step(
        self, impl: Implementation, scratch: Path, mode: Mode, signum: int
    ) -> None:
        """FileBackedData(path, cleanup=True) never both raises and deletes the file later."""
        take = (owner(impl), check_taken(impl, moved=False), OWNING_CALL)
        _take_interrupted_at_each_step(impl, scratch, mode, signum, take)

    @clause("FBD-INTR-1")
    @MOVED  # the owner is made by move_from
    @OBSERVED_BY_CLOSING
    @at_each_step
    def test_close_interrupted_at_each_step(
        self, impl: Implementation, scratch: Path, mode: Mode, signum: int
    ) -> None:
        """An interrupted close() has released the file before the interrupt propagates."""
        with scrubbed(scratch):
            runs = iter(range(1 << 30))
            probe = _owned(impl, scratch, -1)
            steps = count_steps(probe.blob.close, mode, signum)
            require_steps(steps, mode, "close() of an owner made by move_from")
            check_close(probe, None, None)
            done = _run_each(
                f"close() of an owner made by move_from, at each of its {steps} steps",
                _every_step(steps, mode),
                mode,
                lambda: _owned(impl, scratch, next(runs)),
                close_it,
                followed(check_close, impl, scratch, "close()"),
                signum,
            )
            assert done > steps

    @clause("FBD-INTR-1", "FBD-CLOSE-5")
    @MOVED
    @OWNING
    @requires("subprocess")
    def test_second_interrupt_during_exit_leaves_nothing(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        with scrubbed(tmp_path):
            run = run_child(impl, _EXIT_UNDER_INTERRUPTS, tmp_path, "exit")
            assert run.lines == ["20"], run.stderr
            assert run.returncode != 0  # the KeyboardInterrupt ended it
            left = sorted(os.listdir(tmp_path))
            check(  # the release at exit itself is FBD-CLOSE-5's, checked without interrupts
                left == [],
                "20 owned files (10 by move_from, 10 by FileBackedData(path, cleanup=True)) were "
                "alive when a KeyboardInterrupt ended the child; during the release at exit a "
                "second SIGINT came (its handler called) just before each os.unlink and os.remove; "
                f"expected no file left, found {len(left)}: {left}",
                "FBD-INTR-1",
            )

    @clause("FBD-INTR-1", "FBD-CLOSE-5")
    @MOVED
    @OWNING
    @requires("subprocess")
    def test_sigterm_during_exit_leaves_nothing(self, impl: Implementation, tmp_path: Path) -> None:
        """One SIGTERM whose handler raises SystemExit, while the owned files are released at
        exit: every owned file is released all the same."""
        with scrubbed(tmp_path):
            run = run_child(impl, _EXIT_UNDER_SIGTERM, tmp_path, "exit")
            assert run.lines == ["20"], run.stderr
            left = sorted(os.listdir(tmp_path))
            check(
                left == [],
                f"{len(left)} owned file(s) left after a SIGTERM whose handler raised SystemExit "
                "during the release at exit",
                "FBD-INTR-1",
            )

    @clause("FBD-FORK-2")
    @MOVED  # the thread and the child move_from
    @needs_fork
    def test_fork_at_each_line_of_a_concurrent_move_from(
        self, impl: Implementation, scratch: Path
    ) -> None:
        """Forked at every line another thread's move_from runs, the child's move_from completes."""
        lines = _lines_of_a_move(impl, scratch)
        require_steps(lines, "lines", "move_from(source) in a thread")
        failures = [
            failed
            for line in range(1, lines + 1)
            if (failed := _fork_during_move(impl, scratch, line, 5)) is not None
        ]
        assert not failures, failures

    @clause("FBD-INTR-1")
    @OBSERVED_BY_CLOSING
    @MOVED
    @needs_proc
    def test_campaign_of_interrupted_moves(
        self, impl: Implementation, scratch: Path, request: pytest.FixtureRequest
    ) -> None:
        with scrubbed(scratch):
            runs = campaign_size(200, 10_000)
            for mode in MODES:
                done = campaign(
                    runs // 2,
                    in_directory(scratch / mode),
                    mover(impl),
                    followed(check_taken(impl, moved=True), impl, scratch, "move_from(source)"),
                    seed=1,
                    mode=mode,
                    what="move_from(source)",
                )
                _report(request, f"interrupted move_from ({mode})", done)

    @clause("FBD-INTR-1")
    @OBSERVED_BY_CLOSING
    @needs_proc
    @pytest.mark.parametrize(
        "what", [pytest.param("constructor", marks=OWNING), pytest.param("close", marks=MOVED)]
    )
    def test_campaign_of_interrupted_owning_and_closing(
        self,
        impl: Implementation,
        scratch: Path,
        what: str,
        request: pytest.FixtureRequest,
    ) -> None:
        with scrubbed(scratch):
            runs = campaign_size(100, 3_000)
            for mode in MODES:
                base = scratch / mode
                if what == "constructor":
                    done = campaign(
                        runs // 2,
                        in_directory(base),
                        owner(impl),
                        followed(
                            check_taken(impl, moved=False),
                            impl,
                            scratch,
                            "FileBackedData(source, cleanup=True)",
                        ),
                        seed=2,
                        mode=mode,
                        what="FileBackedData(source, cleanup=True)",
                    )
                else:
                    done = campaign(
                        runs // 2,
                        functools.partial(_owned, impl, base),
                        close_it,
                        followed(check_close, impl, scratch, "close()"),
                        seed=3,
                        mode=mode,
                        what="close() of an owner made by move_from",
                    )
                _report(request, f"interrupted {what} ({mode})", done)

    @clause("FBD-FORK-2")
    @MOVED  # the thread and the child move_from
    @needs_fork
    def test_campaign_of_forks_during_moves(
        self, impl: Implementation, scratch: Path, request: pytest.FixtureRequest
    ) -> None:
        import random

        forks = campaign_size(40, 400)
        lines = _lines_of_a_move(impl, scratch)
        rng = random.Random(4)
        started = time.perf_counter()
        failures = [
            failed
            for _ in range(forks)
            if (failed := _fork_during_move(impl, scratch, rng.randint(1, lines), 5)) is not None
        ]
        _report(request, "forks during move_from", (forks, time.perf_counter() - started))
        assert not failures, failures
