"""What the campaign's scripts share: an interrupt raised at chosen lines of a function, a thread
stopped at one, an action run as a second uid, a victim interpreter, and the files left holding
the caller's data. Like the scripts, it attacks ``reference`` as the import path finds it
(``PYTHONPATH=<checkout>``); what it takes from the conformance harness is its own checkout's
(``docs/attacks/_common.py``)."""

from __future__ import annotations

import contextlib
import linecache
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from reference import sweep
from reference.hooks import CompileSpec

sys.path.append(str(Path(__file__).resolve().parents[1]))  # docs/attacks, for _common
from _common import harness  # found through the line above

bounded_wait = harness("forks").bounded_wait
"""The harness's bounded wait for a forked child: its exit status, or None once killed."""

SPECS = [CompileSpec("low_memory_mode", b"ON")]
"""The compile specs of the hook's low-memory mode."""


class Interrupt(Exception):
    """What the program's handler raises."""


def handler(signum: int, frame: FrameType | None) -> None:
    """A signal handler that raises, as a program's may."""
    raise Interrupt(signum)


@contextlib.contextmanager
def interrupted_at(code: CodeType, lines: Sequence[int]) -> Iterator[list[int]]:
    """Trace ``code``: at each of ``lines`` in turn, the first time it is reached, SIGUSR1 is
    raised (install :func:`handler` for it). Yields the lines not reached yet, which the trace
    empties as they fire."""
    pending = list(lines)

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line" and pending and frame.f_lineno == pending[0]:
            pending.pop(0)
            signal.raise_signal(signal.SIGUSR1)
        return local

    sys.settrace(lambda frame, event, arg: local if frame.f_code is code else None)
    try:
        yield pending
    finally:
        sys.settrace(None)


def pausing_at(
    code: CodeType, marker: str, reached: threading.Event, go_on: threading.Event, bound: float
) -> Callable[[FrameType, str, Any], Any]:
    """A trace function (for ``sys.settrace``) that stops a thread at each line of ``code``
    holding ``marker``: it sets ``reached`` and waits for ``go_on``, ``bound`` seconds at the
    most."""

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
        if event == "line" and marker in line:
            reached.set()
            go_on.wait(bound)
        return local

    return lambda frame, event, arg: local if frame.f_code is code else None


def as_other(action: Callable[[], object]) -> bool:
    """Run ``action`` in a forked child as uid 65534 (needs root); whether it succeeded."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(65534)
            os.setuid(65534)
            action()
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def file_in(directory: str, name: str = "m.wrapper.so", data: bytes = b"") -> str:
    """A file ``name`` made in ``directory`` holding ``data`` (by default the empty program the
    hook is given); its path."""
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def victim(script: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter with this one's import path (50 s at the most)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        env=env,
        timeout=50,
        capture_output=True,
        text=True,
    )


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[str]:
    """A new temporary directory named ``prefix...``, removed with all it holds afterwards."""
    directory = tempfile.mkdtemp(prefix=prefix)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def holding(directory: str, data: bytes) -> list[str]:
    """The names of the files in ``directory`` that hold ``data``."""
    found = []
    for name in os.listdir(directory):
        with open(os.path.join(directory, name), "rb") as f:
            if f.read() == data:
                found.append(name)
    return found


def stranded(directory: str, data: bytes) -> tuple[list[str], list[str]]:
    """The files in ``directory`` holding ``data``, and those of them a sweep deletes (orphaned
    placeholders)."""
    kept = holding(directory, data)
    orphans = {p.name for p in sweep.find_orphans(directory)}
    return kept, [name for name in kept if name in orphans]
