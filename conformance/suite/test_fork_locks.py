"""Forks while another thread holds a lock the layer takes (FBD-FORK-2): the child forked while a
parent thread is inside an object's ``close()``, at each of its lines, closes that object and owns
files of its own; the child forked while a parent thread holds a lock of the standard library in
the process's first ``move_from`` (a fresh interpreter) makes its own first placeholder."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.checks import check
from conformance.harness.child import child_script, run_child
from conformance.harness.forks import bounded_wait, fork_threaded
from conformance.suite.line_trap import LineTrap

clause = pytest.mark.clause
requires = pytest.mark.requires
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")

DATA = b"forked " * 512
CHILD_BOUND = 5.0
"""Seconds a forked child has to close, take and release; it is killed after."""


class _PausedAt(LineTrap):
    """A thread running ``call`` that stops at its ``line``-th traced line until released; with
    ``line`` 0 it only counts the lines."""

    def __init__(self, call: Callable[[], object], line: int) -> None:
        super().__init__(line, hold=60)
        self.raised: list[BaseException] = []
        self._call = call
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        sys.settrace(self._trace)
        try:
            self._call()
        except BaseException as exc:  # reported by the test
            self.raised.append(exc)
        finally:
            sys.settrace(None)
            self.reached.set()


def _fork_during_close(impl: Implementation, base: Path, line: int) -> str | None:
    """Fork while another thread is paused at ``line`` of an owner's ``close()``; the child must
    close the inherited object and take and release a file of its own within the bound."""
    directory = base / f"line{line}"
    directory.mkdir()
    (directory / "parent.bin").write_bytes(DATA)
    (directory / "child.bin").write_bytes(DATA)
    blob = impl.FileBackedData.move_from(str(directory / "parent.bin"))
    paused = _PausedAt(blob.close, line)
    paused.thread.start()
    try:
        if not paused.reached.wait(30):
            return f"line {line} of close() was not reached within 30 s"
        pid = fork_threaded()
        if pid == 0:  # pragma: no cover - the child; it must never return into pytest
            status = 1
            try:
                blob.close()
                impl.FileBackedData.move_from(str(directory / "child.bin")).close()
                status = 0
            finally:
                os._exit(status)
        code = bounded_wait(pid, CHILD_BOUND)
    finally:
        paused.release.set()
        paused.thread.join(30)
    where = (
        f"a child forked while another thread of the parent was paused at line {line} of an "
        "owner's close()"
    )
    if code is None:
        return (
            f"{where}: its close() of the inherited object, or its own move_from and close(), "
            f"had not completed after {CHILD_BOUND} s (killed); expected them to wait for no "
            "lock the parent's thread held"
        )
    if code != 0:
        return f"{where}: its close() or its own move_from raised (exit status {code})"
    if paused.raised:
        return f"the parent's close() raised {paused.raised[0]!r}"
    return None


def _lines_of_a_close(impl: Implementation, base: Path) -> int:
    """How many lines the paused thread traces in a whole close() of an owner."""
    source = base / "probe.bin"
    source.write_bytes(DATA)
    blob: FileBackedData = impl.FileBackedData.move_from(str(source))
    probe = _PausedAt(blob.close, 0)
    probe.thread.start()
    probe.thread.join(30)
    assert not probe.raised, probe.raised
    return probe.count


@pytest.mark.requires("file-backed")
@pytest.mark.relies_on("FBD-MOVE-1", "FBD-CLOSE-1")  # owners by move_from, released by close()
class TestForkDuringClose:
    @clause("FBD-FORK-2")
    @needs_fork
    def test_fork_at_each_line_of_a_concurrent_close(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        """Forked at every line another thread's close() of an owner runs (its close lock held,
        where it has one), the child closes that object and moves and closes a file of its own."""
        lines = _lines_of_a_close(impl, tmp_path)
        assert lines > 0
        for line in range(1, lines + 1):  # the first failure ends the test: each waits the bound
            failed = _fork_during_close(impl, tmp_path, line)
            assert failed is None, failed


_PAUSED_IN_A_FIRST_CALL = r"""
import sysconfig, threading
from conformance.harness.forks import bounded_wait, fork_threaded

def write(name):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(CONTENT)
    return path

parent_path, child_path = (write(name) for name in NAMES)
STDLIB = sysconfig.get_paths()["stdlib"]
KINDS = (type(threading.Lock()), type(threading.RLock()))

def module_locks():
    # the locks the standard library's loaded modules keep at module level, by name
    found = {}
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None) or ""
        if not where.startswith(STDLIB) or "-packages" in where:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, KINDS):
                found[f"{name}.{attr}"] = value
    return found

def held(lock):
    owned = getattr(lock, "_is_owned", None)
    return owned() if owned is not None else lock.locked()

state = {"modules": -1, "locks": {}, "paused": "none"}
reached, release = threading.Event(), threading.Event()
busy_at_start = {name for name, lock in module_locks().items() if held(lock)}

def trace(frame, event, arg):
    # paused at the first line at which the thread holds a lock it did not find held
    if event == "line" and not reached.is_set():
        if len(sys.modules) != state["modules"]:
            state["modules"], state["locks"] = len(sys.modules), module_locks()
        for name, lock in state["locks"].items():
            if name not in busy_at_start and held(lock):
                state["paused"] = f"{name} at {frame.f_code.co_filename}:{frame.f_lineno}"
                reached.set()
                release.wait(60)
                break
    return trace

result = []

def first_call():
    sys.settrace(trace)
    try:
        result.append(parent_call(parent_path))
    finally:
        sys.settrace(None)
        reached.set()

thread = threading.Thread(target=first_call, daemon=True)
thread.start()
reached.wait(60)
print(f"paused={state['paused']}", flush=True)
pid = fork_threaded()
if pid == 0:
    code = 1
    try:
        child_call(child_path)
        code = 0
    finally:
        os._exit(code)
code = bounded_wait(pid, float(case))
print(f"child={'hung' if code is None else code}", flush=True)
release.set()
thread.join(30)
for made in result:
    finish(made)
"""
"""The body the first-call scripts share: it writes ``NAMES`` (the parent's file, the child's)
holding ``CONTENT``, runs ``parent_call`` on the first in a thread paused at the first line at
which it holds a module-level lock of the standard library, forks, and has the child run
``child_call`` on the second within ``case`` seconds; ``finish`` disposes of what the parent's
call made. It prints ``paused=`` (the lock and line) and ``child=`` (exit status, or hung)."""

_FIRST_MOVE = child_script(
    r"""
CONTENT, NAMES = b"first move\n" * 64, ("parent.bin", "child.bin")

def parent_call(path):
    return impl.FileBackedData.move_from(path)

def child_call(path):
    impl.FileBackedData.move_from(path).close()

def finish(blob):
    blob.close()
"""
    + _PAUSED_IN_A_FIRST_CALL
)

_FIRST_MATERIALIZE = child_script(
    r"""
CONTENT, NAMES = b"\x7fELF", ("parent.wrapper.so", "child.wrapper.so")
WEIGHTS = [b"first materialize\n" * 64]

def parent_call(path):
    return impl.low_memory.materialize(path, iter(WEIGHTS))

def child_call(path):
    finish(impl.low_memory.materialize(path, iter(WEIGHTS)))

def finish(blob):
    data, _ = impl.low_memory.load(blob)
    getattr(data, "close", lambda: None)()
"""
    + _PAUSED_IN_A_FIRST_CALL
)


@dataclass(frozen=True)
class FirstCall:
    """One first-call campaign: its ``script`` (one of the first-call scripts), its ``calls``
    (the call the parent's thread is paused inside, what the child calls itself), the clause it
    is for, and the files (``leftover``: what they are, which names) the run must not leave."""

    script: str
    calls: tuple[str, str]
    clause_id: str
    leftover: tuple[str, Callable[[str], bool]]


FIRST_MOVE = FirstCall(
    _FIRST_MOVE,
    ("move_from", "first move_from and close()"),
    "FBD-FORK-2",
    ("placeholders", lambda name: name.startswith(".executorch_")),
)
FIRST_MATERIALIZE = FirstCall(
    _FIRST_MATERIALIZE,
    ("materialize_weights_blob", "materialize and load"),
    "HOOK-MAT-5",
    ("temporary files", lambda name: name.endswith(".tmp")),
)


def _fork_in_a_first_call(impl: Implementation, first: FirstCall, base: Path) -> None:
    """A fresh interpreter starts a thread on its first call, paused at the first line at which
    it holds a module-level lock of the standard library (tempfile's first-name lock, for a file
    made by mkstemp), and forks: the child's own calls must complete within the bound, and no
    file ``first.leftover`` names may be left."""
    inside, own = first.calls
    run = run_child(impl, first.script, base, str(CHILD_BOUND), fresh=True)
    paused = run.value("paused")
    child = run.value("child")
    check(
        child == "0",
        "a child forked while another thread of a fresh parent was inside the process's "
        f"first {inside} (paused holding {paused}): its own {own} "
        + (
            f"had not completed after {CHILD_BOUND} s (killed)"
            if child == "hung"
            else f"failed (exit status {child})"
        )
        + "; expected them to wait for no lock the parent's thread held",
        first.clause_id,
    )
    assert run.returncode == 0, run.stderr
    what, which = first.leftover
    left = [n for n in os.listdir(base) if which(n)]
    assert not left, f"{what} left: {left}"


@requires("subprocess")
@pytest.mark.requires("file-backed")
@pytest.mark.relies_on("FBD-MOVE-1", "FBD-CLOSE-1")
class TestForkDuringFirstMove:
    @clause("FBD-FORK-2")
    @needs_fork
    def test_child_makes_its_first_placeholder(self, impl: Implementation, tmp_path: Path) -> None:
        """The child's first move_from, its placeholder made by mkstemp, and close() complete."""
        _fork_in_a_first_call(impl, FIRST_MOVE, tmp_path)


@requires("subprocess")
@pytest.mark.requires("low-memory-weights")
@pytest.mark.relies_on("HOOK-LOW-1")
class TestForkDuringFirstMaterialize:
    @clause("HOOK-MAT-5")
    @needs_fork
    def test_child_materializes_its_first_blob(self, impl: Implementation, tmp_path: Path) -> None:
        """The child's first materialize, its temporaries made by mkstemp, and load complete."""
        _fork_in_a_first_call(impl, FIRST_MATERIALIZE, tmp_path)
