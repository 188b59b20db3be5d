"""The weights hooks under a raising signal handler (spec HOOK-MAT-6, HOOK-LOW-5).

A handler that raises (Ctrl-C's ``KeyboardInterrupt``, a SIGTERM handler raising ``SystemExit``)
may run at any moment. Each test first counts the line events of the implementation's own code
(not the standard library's, not the suite's) under one call, then repeats the call once per
event, a signal raised at that event: materialize must leave no temporary file nor descriptor,
and a load must hand its owner over or leave the weights on disk.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import conformance
from conformance.api import Implementation, LowMemoryWeights
from conformance.harness.observe import unobserved

clause = pytest.mark.clause
requires = pytest.mark.requires

WEIGHTS = [b"weights that took hours " * 64, b"and their tail " * 16]
SIGNAL = signal.SIGUSR1
_NOT_THE_IMPLEMENTATION = tuple(
    os.path.realpath(p)
    for p in {*sysconfig.get_paths().values(), os.path.dirname(conformance.__file__)}
)
"""Code under these directories is the standard library's, installed packages', or the suite's
(adapters included): an interrupt point is a line of the implementation's own code."""


class Interrupt(Exception):
    """What the program's handler raises."""


class ProducerFailed(Exception):
    """The weights' producer failing half-way (as on ENOSPC)."""


def _handler(signum: int, frame: FrameType | None) -> None:
    raise Interrupt(signum)


def implementation_code(code: Any, cache: dict[str, bool] = {}) -> bool:  # noqa: B006  # a cache by design
    """Whether ``code`` is the implementation's own."""
    name = code.co_filename
    if name not in cache:
        real = os.path.realpath(name)
        cache[name] = not name.startswith("<") and not real.startswith(_NOT_THE_IMPLEMENTATION)
    return cache[name]


def _interrupted(call: Callable[[], object], at: int) -> tuple[int, bool, object]:
    """Run ``call`` with a signal raised at its ``at``-th line event of the implementation's own
    code (none when ``at`` is 0): the events counted, whether it fired, and what ``call``
    returned (or the exception it raised)."""
    count = 0
    fired = False

    def local(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count, fired
        if event == "line":
            count += 1
            if count == at:
                fired = True
                signal.raise_signal(SIGNAL)
        return local

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        return local if implementation_code(frame.f_code) else None

    previous = signal.signal(SIGNAL, _handler)
    sys.settrace(tracer)
    try:
        try:
            outcome: object = call()
        except (Interrupt, ProducerFailed) as exc:
            outcome = exc
    finally:
        sys.settrace(None)
        signal.signal(SIGNAL, previous)
    return count, fired, outcome


def _points(
    call: Callable[[], object], release: Callable[[object], object] | None = None
) -> tuple[range, object]:
    """Every interrupt point of ``call`` (1 to the events an uninterrupted call counts), and
    what that call returned; with none, ``release`` what it returned and end unobserved."""
    count, _, outcome = _interrupted(call, 0)
    if count == 0:  # native code, or code the tracer does not reach: nothing was seen
        if release is not None and isinstance(outcome, tuple):
            release(outcome[0])  # what the call handed over is the test's to release
        unobserved("no line of the implementation's own Python code ran: nothing to interrupt")
    return range(1, count + 1), outcome


def _descriptors_in(directory: Path) -> list[str]:
    """What this process's open descriptors lead to in ``directory`` (or it itself)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target == str(directory) or target.startswith(f"{directory}/"):
            found.append(target)
    return found


def _hooks(impl: Implementation) -> LowMemoryWeights:
    assert impl.low_memory is not None  # requires("low-memory-weights")
    return impl.low_memory


def _failing() -> Iterator[bytes]:
    yield WEIGHTS[0]
    raise ProducerFailed("no space left for the weights")


def _release(data: object) -> None:
    close = getattr(data, "close", None)
    if close is not None:
        close()


needs_proc = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="not testable here: no /proc/self/fd"
)


@requires("low-memory-weights")
class TestMaterializeInterrupted:
    @clause("HOOK-MAT-6")
    @needs_proc
    @pytest.mark.parametrize("producer", ["succeeds", "fails"])
    def test_no_temporary_nor_descriptor_is_left(
        self, impl: Implementation, tmp_path: Path, producer: str
    ) -> None:
        hooks = _hooks(impl)
        runs: list[Path] = []

        def materialize() -> object:
            directory = tmp_path / f"run{len(runs)}"
            runs.append(directory)
            directory.mkdir()
            so = directory / "model.wrapper.so"
            so.write_bytes(b"\x7fELF")
            chunks = iter(WEIGHTS) if producer == "succeeds" else _failing()
            return hooks.materialize(str(so), chunks)

        failures = []
        points, _ = _points(materialize)
        for at in points:
            _, fired, outcome = _interrupted(materialize, at)
            del outcome
            gc.collect()
            directory = runs[-1]
            blob = [n for n in os.listdir(directory) if n != "model.wrapper.so"]
            # what may stay: the blob, complete under its name, when the signal came after
            strays = [n for n in blob if not n.endswith("_weights.blob") or n.startswith(".")]
            fds = _descriptors_in(directory)
            if fired and (strays or fds):
                failures.append(f"signal at event {at}: left {strays}, descriptors {fds}")
        assert not failures, (
            f"a raising handler during materialize (the producer {producer}) left temporary "
            "files or descriptors:\n  " + "\n  ".join(failures[:10])
        )


@requires("low-memory-weights")
class TestLoadInterrupted:
    @clause("HOOK-LOW-5")
    def test_the_weights_stay_on_disk_unless_the_owner_is_handed_over(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        hooks = _hooks(impl)
        blobs: list[str] = []
        written: list[bytes] = []  # the blob as materialize wrote it (padding and all)

        def setup() -> None:
            directory = tmp_path / f"run{len(blobs)}"
            directory.mkdir()
            so = directory / "model.wrapper.so"
            so.write_bytes(b"\x7fELF")
            blobs.append(hooks.materialize(str(so), iter(WEIGHTS)))
            written.append(Path(blobs[-1]).read_bytes())

        def load() -> object:
            return hooks.load(blobs[-1])

        setup()
        points, whole = _points(load, _release)
        assert isinstance(whole, tuple), whole
        _release(whole[0])
        lost = []
        for at in points:
            setup()
            _, fired, outcome = _interrupted(load, at)
            if not isinstance(outcome, BaseException):
                assert isinstance(outcome, tuple)
                _release(outcome[0])  # handed over: the caller's to release
                continue
            del outcome
            gc.collect()
            directory = Path(blobs[-1]).parent
            holding = [p.name for p in directory.iterdir() if p.read_bytes() == written[-1]]
            if fired and not holding:
                lost.append(at)
        assert not lost, (
            f"an interrupt in the low-memory load at line event(s) {lost[:10]} of the "
            "implementation's own code lost the weights: the owner the caller never received "
            "deleted the only copy (expected the file given back to the blob's path)"
        )
