"""Faults below Python: a scenario run in a child interpreter under ``strace``, with one system call
made to fail with ``EIO`` (``strace --inject=SYSCALL:error=EIO:when=N``).

The Python-level hooks (:mod:`.os_faults`, :mod:`.interrupts`) see only calls made through
``os.<name>`` looked up at call time; a port that binds ``from os import replace``, calls
``posix``, ``shutil`` or libc through ctypes, or is native code, makes its system calls all the
same, and this module faults those. It is language-neutral, and slower than the Python hooks (a
child forked from the implementation's warm parent, :mod:`.warm`, and strace attached to it, per
fault: see :func:`each_syscall_fault`), so the suite uses it where the Python hooks saw none of the
calls a scenario must make.

A scenario is the body of a child script (:func:`syscall_script`) that loads the implementation by
name (already imported in the warm parent), waits until strace is attached, prepares what it
needs, calls ``begin()``, runs the operation, calls ``end()`` and prints ``name=value`` lines of
what it found. ``begin()`` and ``end()`` make a system call with a marker path (``access``), so
that a first, counting run under ``strace`` tells the calls of the operation from those of its
preparation; each faulted run then fails the ``N``-th call of one system call in the scenario's
thread (strace counts invocations per thread and per system call). Only a fault *before* a call
can be injected this way: strace replaces the call, which never runs.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..api import Capability, Implementation
from .child import CHILD_TIMEOUT, child_env
from .warm import warm_parent

__all__ = [
    "FILE_CALLS",
    "SyscallFault",
    "SyscallRun",
    "can_fault_syscalls",
    "each_syscall_fault",
    "scenario_calls",
    "syscall_script",
    "unavailable",
]

FILE_CALLS = (
    "open", "openat", "openat2", "creat", "rename", "renameat", "renameat2", "link", "linkat",
    "unlink", "unlinkat", "rmdir", "read", "pread64", "readv", "preadv", "preadv2", "write",
    "pwrite64", "writev", "pwritev", "pwritev2", "sendfile", "copy_file_range", "splice",
    "fsync", "fdatasync", "ftruncate", "fallocate", "close",
)  # fmt: skip
"""The system calls a scenario's faults may be injected into (those it makes, in its thread)."""

_MARK = "/cordspec-scenario-"
_LINE = re.compile(r"^(?P<pid>\d+) +(?P<name>\w+)\((?P<args>.*)$")

_HEAD = r"""
import os, sys
from conformance.adapters import load_implementation

target, directory, mark = sys.argv[1:4]
impl = load_implementation(target)
sys.dont_write_bytecode = True  # no run writes a cache file another run would not
import hashlib, io, json, random  # what scenarios use, imported before anything is counted
from pathlib import Path
from conformance.harness.helpers import placeholders
import signal
# The harness attaches strace to this process, then sends SIGUSR1: the wait is no file system call,
# so strace counts the same calls from here on in every run, however soon it attached.
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
with open(os.path.join(directory, ".cordspec-pid.tmp"), "w") as f:
    f.write(str(os.getpid()))
os.replace(os.path.join(directory, ".cordspec-pid.tmp"), os.path.join(directory, ".cordspec-pid"))
signal.sigwait([signal.SIGUSR1])
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1])


def begin():
    os.access(mark + "begin", os.F_OK)


def end():
    os.access(mark + "end", os.F_OK)

"""


def syscall_script(body: str) -> str:
    """A scenario for :func:`each_syscall_fault`: ``body`` with ``impl`` loaded, ``directory``
    (its scratch directory, the working directory too) and ``begin()``/``end()`` around the
    operation."""
    return _HEAD + body


_PROBE = """
import errno, os, sys
try:
    os.chdir("/")
except OSError as exc:
    sys.exit(0 if exc.errno == errno.EIO else 3)
sys.exit(4)
"""
"""A child whose first ``chdir`` strace fails: exit 0 when the fault came."""


@functools.cache
def unavailable() -> str | None:
    """Why system calls cannot be faulted here (no ``strace``, ptrace refused), or None."""
    strace = shutil.which("strace")
    if strace is None:
        return "not testable here: strace unavailable"
    try:
        done = subprocess.run(
            [strace, "-f", "-qq", "-o", os.devnull, "-e", "inject=chdir:error=EIO:when=1",
             sys.executable, "-c", _PROBE],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"not testable here: strace could not run ({exc})"
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return f"not testable here: strace cannot trace a child (ptrace refused?): {why[0]}"
    return None


@dataclass(frozen=True)
class SyscallFault:
    """The ``index``-th (from 1) call of ``syscall`` the scenario's operation made, as strace
    showed it in the counting run (``shown``); ``nth`` is its number in the thread's whole life,
    which strace's ``when=`` counts."""

    syscall: str
    index: int
    nth: int
    shown: str

    def __str__(self) -> str:
        return f"{self.syscall} #{self.index} of the operation (in the counting run: {self.shown})"


@dataclass(frozen=True)
class SyscallRun:
    """A faulted run of a scenario: the fault, whether strace reported injecting it inside the
    operation, the child's exit code, ``name=value`` lines and stderr."""

    fault: SyscallFault
    injected: bool
    returncode: int
    lines: list[str]
    stderr: str
    seconds: float

    def value(self, name: str) -> str | None:
        """The value of the child's ``name=value`` line, None if it printed none."""
        for line in self.lines:
            key, sep, value = line.partition("=")
            if sep and key == name:
                return value
        return None


def _run(
    impl: Implementation, script: str, directory: Path, log: Path, trace: str, inject: str = ""
) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run ``script`` in a child forked from the implementation's warm parent (:mod:`.warm`: no
    import per run, which for ExecuTorch is torch's seconds), with strace attached to it before
    it begins (the handshake of the script's head)."""
    assert impl.target is not None  # the "subprocess" capability
    mark = f"{_MARK}{uuid.uuid4().hex}-"
    strace = shutil.which("strace") or "strace"
    argv = [strace, "-f", "-qq", "-o", str(log), "-e", f"trace={trace}", "-e", "signal=none"]
    if inject:
        argv += ["-e", inject]
    attached: list[subprocess.Popen[bytes]] = []
    failed: list[str] = []
    helper = threading.Thread(
        target=_attach, args=(directory, argv, attached, failed), name="cordspec-strace"
    )
    helper.start()
    try:
        done = warm_parent(impl.target, child_env()).run(
            script, [impl.target, str(directory), mark], directory, CHILD_TIMEOUT
        )
    finally:
        helper.join(_ATTACH_SECONDS * 2)
        for tracer in attached:
            try:
                tracer.wait(30)
            except subprocess.TimeoutExpired:
                tracer.kill()
                tracer.wait()
        (directory / ".cordspec-pid").unlink(missing_ok=True)
    if failed:
        raise RuntimeError(f"strace could not be attached to the child: {failed[0]}")
    return done, mark


_ATTACH_SECONDS = 60.0
"""How long the attaching helper waits for the child's pid, then for strace to be attached."""


def _attach(
    directory: Path, argv: list[str], attached: list[subprocess.Popen[bytes]], failed: list[str]
) -> None:
    """Wait for the child's pid, attach strace to it, wait until it is traced, then send it the
    SIGUSR1 it waits for (also when attaching failed, so that it never waits for ever)."""
    pidfile = directory / ".cordspec-pid"
    pid = 0
    try:
        deadline = time.monotonic() + _ATTACH_SECONDS
        while not pidfile.exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no pid from the child after {_ATTACH_SECONDS:g} s")
            time.sleep(0.002)
        pid = int(pidfile.read_text())
        tracer = subprocess.Popen(
            [*argv, "-p", str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        attached.append(tracer)
        while _tracer_of(pid) == 0:
            if time.monotonic() > deadline or tracer.poll() is not None:
                said = tracer.stderr.read().decode() if tracer.stderr and tracer.poll() else ""
                raise TimeoutError(f"strace did not attach to {pid}: {said.strip()}")
            time.sleep(0.002)
    except (OSError, ValueError, TimeoutError) as exc:
        failed.append(str(exc))
    finally:
        if pid:
            os.kill(pid, signal.SIGUSR1)


def _tracer_of(pid: int) -> int:
    """The pid tracing ``pid`` (0: none, or the process is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return -1
    for line in status.splitlines():
        if line.startswith("TracerPid:"):
            return int(line.split()[1])
    return 0


def _window(log: Path, mark: str) -> tuple[str, list[tuple[str, str]], dict[str, int]] | None:
    """The scenario thread's pid, its calls between the marks (or from the first to the end of the
    log, when the child died first) as (name, line), and how many calls of each system call it made
    before the first mark; None if the first mark is not there."""
    before: dict[str, int] = {}
    calls: list[tuple[str, str]] = []
    state = "before"
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    begin = next((m for m in map(_LINE.match, lines) if m and f"{mark}begin" in m["args"]), None)
    if begin is None:
        return None
    pid = begin["pid"]
    for line in lines:
        found = _LINE.match(line)
        if found is None or found["pid"] != pid:
            continue
        if f"{mark}begin" in found["args"]:
            state = "within"
        elif f"{mark}end" in found["args"]:
            return pid, calls, before
        elif state == "before":
            before[found["name"]] = before.get(found["name"], 0) + 1
        else:
            calls.append((found["name"], line.split(" ", 1)[1].strip()))
    return pid, calls, before


def scenario_calls(
    impl: Implementation, script: str, directory: Path, syscalls: Sequence[str] = FILE_CALLS
) -> list[SyscallFault]:
    """The calls of ``syscalls`` the scenario's operation makes in its thread, from a counting
    run under strace in ``directory`` (which the scenario may change: give it a fresh one)."""
    log = directory / ".strace-count.log"
    trace = ",".join((*syscalls, "access", "faccessat", "faccessat2"))
    done, mark = _run(impl, script, directory, log, trace)
    window = _window(log, mark)
    log.unlink()
    if window is None:
        raise AssertionError(
            f"the scenario's counting run under strace did not reach its end (exit "
            f"{done.returncode}); stderr:\n{done.stderr[-2000:]}"
        )
    _, calls, before = window
    counted: dict[str, int] = {}
    faults = []
    for name, shown in calls:
        if name not in syscalls:
            continue
        counted[name] = counted.get(name, 0) + 1
        nth = before.get(name, 0) + counted[name]
        faults.append(SyscallFault(name, counted[name], nth, shown))
    return faults


def each_syscall_fault(
    impl: Implementation,
    script: str,
    fresh: Callable[[str], Path],
    syscalls: Sequence[str] = FILE_CALLS,
) -> Iterator[SyscallRun]:
    """For each call of ``syscalls`` the scenario's operation makes (counted in ``fresh("count")``),
    a run of it in a new directory (``fresh(name)``) with that call failed with EIO. A run whose
    fault strace did not inject inside the operation (the preparation made other calls this time)
    says so (``injected`` False). Each run costs a fork of the warm parent and an attach of
    strace: 0.1 to 0.5 s here, for the reference and for ExecuTorch alike."""
    for fault in scenario_calls(impl, script, fresh("count"), syscalls):
        directory = fresh(f"{fault.syscall}-{fault.index}")
        log = directory / ".strace-fault.log"
        trace = ",".join((fault.syscall, "access", "faccessat", "faccessat2"))
        inject = f"inject={fault.syscall}:error=EIO:when={fault.nth}"
        started = time.perf_counter()
        done, mark = _run(impl, script, directory, log, trace, inject)
        seconds = time.perf_counter() - started
        window = _window(log, mark)
        log.unlink()
        injected = window is not None and any(
            "(INJECTED)" in shown and name == fault.syscall for name, shown in window[1]
        )
        yield SyscallRun(
            fault, injected, done.returncode, done.stdout.splitlines(), done.stderr, seconds
        )


def can_fault_syscalls(impl: Implementation) -> str | None:
    """Why ``impl``'s system calls cannot be faulted in a child here, or None."""
    if Capability.SUBPROCESS not in impl.capabilities or impl.target is None:
        return "not testable here: the implementation cannot be loaded in a child process"
    return unavailable()
