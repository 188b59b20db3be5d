"""The scenarios the suite faults below Python (:mod:`.syscall_faults`), and their checks: a
``move_from`` (FBD-MOVE-4, FBD-MOVE-5, FBD-FAULT-1) and an owned ``close()`` (FBD-CLOSE-1,
FBD-CLOSE-6, FBD-CLOSE-7), each with one system call of the operation failed with EIO. Used where
the Python-level hooks saw none of the calls the operation must make."""

from __future__ import annotations

import errno
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..api import Implementation
from .checks import check
from .observe import unobserved
from .syscall_faults import SyscallRun, can_fault_syscalls, each_syscall_fault, syscall_script

__all__ = ["CLOSE", "MOVE", "Scenario", "reading", "run_below_python"]

_DATA = r"""
import json, random
from pathlib import Path
from conformance.harness.helpers import placeholders

DATA = random.Random("os-call-faults").randbytes((64 << 10) + 4099)
error = None


def whole(path):
    try:
        with open(path, "rb") as f:
            return f.read() == DATA
    except OSError:
        return False


def said(name, value):
    print(f"{name}={value}", flush=True)


def written(name):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(DATA)
    return path


def faulted(call):
    # call() between begin() and end(), the window the fault is injected in; says what it raised
    global error
    result = None
    begin()
    try:
        result = call()
    except OSError as exc:
        error = exc
    finally:
        end()
    said("error", repr(error) if error is not None else "")
    said("errno", getattr(error, "errno", ""))
    return result

"""

_MOVE = r"""
source = written("weights.bin")
inode = os.stat(source).st_ino
blob = faulted(lambda: impl.FileBackedData.move_from(source))
said("source_kept", whole(source) and os.stat(source).st_ino == inode)
said("source_exists", os.path.exists(source))
if blob is not None:
    said("owned_whole", whole(impl.path_of(blob)))
    blob.close()
said("placeholders", json.dumps([str(p) for p in placeholders(Path(directory))]))
said("done", 1)
"""

_CLOSE = r"""
path = written("owned.bin")
blob = impl.FileBackedData(path, cleanup=True)
faulted(blob.close)
said("exists", os.path.exists(path))
said("closed", getattr(blob, "closed", None))
if error is not None:
    try:
        blob.close()
        said("retry", "")
    except Exception as again:
        said("retry", repr(again))
    said("exists_after_retry", os.path.exists(path))
said("done", 1)
"""


_READ = r"""
import hashlib, io
path = written("blob.bin")
blob = impl.FileBackedData(path)
cord = method.startswith("cord-")
want = {"prefix": DATA[:40000], "sha256": hashlib.sha256(DATA).digest()}.get(method, DATA)
if cord:
    want = b"<" + DATA + b">"


def sink():
    if method.endswith("file"):
        return open(os.path.join(directory, "out.bin"), "wb")
    return io.BytesIO()


def call(into):
    if method == "prefix":
        return blob.prefix(40000)
    if method in ("sha256", "to_bytes"):
        return getattr(blob, method)()
    source = blob
    if cord:
        source = impl.Cord(b"<")
        source.append(blob)
        source.append(b">")
    source.write_to_file(into)
    if isinstance(into, io.BytesIO):
        return into.getvalue()
    into.close()
    with open(into.name, "rb") as f:
        return f.read()


first = sink()
got = faulted(lambda: call(first))
said("right", error is None and got == want)
try:
    said("again", call(sink()) == want)
except Exception as again:
    said("again", repr(again))
said("done", 1)
"""

READ_CLAUSES = {"prefix": "FBD-READ-1", "sha256": "FBD-HASH-1", "to_bytes": "FBD-READ-2"}
"""The clause a read's wrong answer fails; a write's is FBD-WRITE-1 (a Cord's CORD-WRITE-1)."""


def _raised_eio(run: SyscallRun, what: str, clause_id: str) -> None:
    """The error ``what`` raised for the run's fault must be that EIO (judged on ``clause_id``)."""
    check(
        run.value("errno") == str(errno.EIO),
        f"{what} raised {run.value('error')} for the EIO injected into {run.fault}",
        clause_id,
    )


def _check_read(method: str) -> Callable[[SyscallRun], None]:
    answer = READ_CLAUSES.get(
        method, "CORD-WRITE-1" if method.startswith("cord-") else "FBD-WRITE-1"
    )

    def check_run(run: SyscallRun) -> None:
        fault = f"EIO injected into {run.fault}"
        if run.value("error"):
            _raised_eio(run, method, "FBD-FAULT-1")
        else:
            check(run.value("right") == "True", f"{method} with the {fault} answered wrong", answer)
        check(
            run.value("again") == "True",
            f"after the {fault}, {method} no longer answers right ({run.value('again')})",
            "FBD-FAULT-1",
        )

    return check_run


def reading(method: str) -> Scenario:
    """A read (``prefix``, ``sha256``, ``to_bytes``) or a write (``write-file``,
    ``write-bytesio``, ``cord-write-file``, ``cord-write-bytesio``) of a borrowed blob."""
    body = f"method = {method!r}\n" + _READ
    return Scenario(method, syscall_script(_DATA + body), _check_read(method))


def _check_move(run: SyscallRun) -> None:
    fault = f"EIO injected into {run.fault}"
    left = json.loads(run.value("placeholders") or "[]")
    if run.value("error"):
        check(
            run.value("source_kept") == "True",
            f"after the {fault}, move_from raised {run.value('error')} and the source is lost "
            "or another file",
            "FBD-MOVE-5",
        )
        _raised_eio(run, "move_from", "FBD-FAULT-1")
    else:
        whole = run.value("owned_whole") == "True" and run.value("source_exists") == "False"
        check(whole, f"with the {fault}, move_from returned but lost the data", "FBD-MOVE-5")
    check(not left, f"the {fault} left {left}", "FBD-MOVE-4")


def _check_close(run: SyscallRun) -> None:
    fault = f"EIO injected into {run.fault}"
    if run.value("error"):
        _raised_eio(run, "close()", "FBD-CLOSE-7")
        check(
            run.value("closed") == "False",
            f"a close() that raised for the {fault} left the object closed",
            "FBD-CLOSE-7",
        )
        check(
            run.value("retry") == "",
            f"the retry of close() raised {run.value('retry')}",
            "FBD-CLOSE-6",
        )
        check(
            run.value("exists_after_retry") == "False",
            "the owned file outlived the retried close()",
            "FBD-CLOSE-1",
        )
    elif run.value("exists") == "True":
        check(
            False,
            f"close() returned with the owned file still there after the {fault}: a failed "
            "removal was swallowed",
            "FBD-CLOSE-7",
        )


@dataclass(frozen=True)
class Scenario:
    """A child script and the check of each of its faulted runs."""

    what: str
    script: str
    check: Callable[[SyscallRun], None]


MOVE = Scenario("move_from", syscall_script(_DATA + _MOVE), _check_move)
CLOSE = Scenario("an owned close()", syscall_script(_DATA + _CLOSE), _check_close)


def run_below_python(
    impl: Implementation, scenario: Scenario, tmp_path: Path, unseen: str, *, after: bool
) -> None:
    """Judge ``scenario`` with each of its system calls failed in a child under strace, because the
    Python hooks saw ``unseen``; where that cannot be done here (no strace, no child process, or
    a fault ``after`` a call took effect, which strace cannot make), the test is unobserved."""
    if after:
        unobserved(
            f"{unseen}; a fault after a system call took effect cannot be injected below Python "
            "(strace fails a call before it runs)"
        )
    why = can_fault_syscalls(impl)
    if why is not None:
        unobserved(f"{unseen}; {why}")
    made = 0

    def fresh(name: str) -> Path:
        nonlocal made
        made += 1
        directory = tmp_path / f"syscall-{made}-{name}"
        directory.mkdir()
        return directory

    started = time.perf_counter()
    runs = 0
    for run in each_syscall_fault(impl, scenario.script, fresh):
        runs += 1
        if not run.injected:
            unobserved(
                f"{unseen}; the EIO for {run.fault} was not injected inside {scenario.what} "
                "(the child's start made other calls than in the counting run)"
            )
        check(
            run.value("done") == "1",
            f"with the EIO injected into {run.fault}, the child running {scenario.what} died "
            f"(exit {run.returncode}): {run.stderr.strip()[-600:]}",
            "FBD-FAULT-1",
        )
        scenario.check(run)
    if runs == 0:
        unobserved(f"{unseen}, and strace saw no file system call of {scenario.what} either")
    print(f"{scenario.what}: {runs} system calls faulted in {time.perf_counter() - started:.1f} s")
