"""How a process ends, and what it leaves: owned files at interpreter exit, by each way a process
can end, and in forked children (spec section 7: FBD-CLOSE-5, FBD-EXIT-1, FBD-FORK-1)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.child import CHILD_TIMEOUT, ChildRun, child_script, run_child
from conformance.harness.helpers import Blobs

clause = pytest.mark.clause
requires = pytest.mark.requires
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")

CONTENTS = b"owned contents\n" * 64


def _no_error_at_exit(run: ChildRun) -> None:
    for marker in ("Exception ignored", "Error in atexit", "Error in sys.excepthook"):
        assert marker not in run.stderr, f"release at exit reported an error:\n{run.stderr}"


def _discard(path: Path) -> None:
    """Remove a file the test expected to be left behind, so no placeholder outlives the test."""
    path.unlink(missing_ok=True)


# --- interpreter exit (section 7) --------------------------------------------------------------

_EXIT_CHILD = child_script(r"""
import gc, signal, time

with open(source, "wb") as f:
    f.write(b"owned by the child\n" * 64)

if case == "borrowed":
    blob = impl.FileBackedData(source, cleanup=False)
    default = impl.FileBackedData(source)
elif case == "cleanup-true":
    blob = impl.FileBackedData(source, cleanup=True)
else:
    blob = impl.FileBackedData.move_from(source)
path = impl.path_of(blob)
print(path, flush=True)


def fail_removal(target):
    def wrap(original):
        def remove(p, *args, **kwargs):
            if os.path.abspath(os.fspath(p)) == os.path.abspath(target):
                raise PermissionError(13, "Permission denied (injected by the suite)", target)
            return original(p, *args, **kwargs)
        return remove
    saved = os.remove, os.unlink
    os.remove, os.unlink = wrap(os.remove), wrap(os.unlink)
    return saved


if case in ("normal", "borrowed", "cleanup-true"):
    pass
elif case == "sys-exit":
    sys.exit(3)
elif case == "exception":
    raise RuntimeError("uncaught in the child")
elif case == "keyboard-interrupt":
    raise KeyboardInterrupt
elif case == "sigint":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(60)
elif case == "sigterm-handler":
    def on_sigterm(signum, frame):
        sys.exit(143)
    signal.signal(signal.SIGTERM, on_sigterm)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(60)
elif case == "sigterm-default":
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(60)
elif case == "sigkill":
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
elif case == "os-exit":
    os._exit(7)
elif case == "cycle":
    gc.disable()
    cycle = [blob]
    cycle.append(cycle)
    del blob, cycle
elif case == "already-gone":
    os.remove(path)
elif case == "close-failed":
    saved = fail_removal(path)
    try:
        blob.close()
        print("close=returned", flush=True)
    except OSError as exc:
        print(f"close=raised {type(exc).__name__}", flush=True)
    finally:
        os.remove, os.unlink = saved
elif case == "removal-fails-at-exit":
    fail_removal(path)
else:
    raise SystemExit(f"unknown case {case}")
""")


@dataclass(frozen=True)
class _Exit:
    case: str
    returncode: int

    @property
    def how(self) -> str:
        """How the child ended, in words, for messages."""
        return _HOW[self.case]


_HOW = {
    "normal": "the main module ended normally",
    "sys-exit": "sys.exit(3)",
    "exception": "an uncaught RuntimeError",
    "keyboard-interrupt": "an uncaught KeyboardInterrupt",
    "sigint": "SIGINT sent to itself, with Python's handler",
    "sigterm-handler": "SIGTERM sent to itself, with a handler calling sys.exit(143)",
    "cycle": "the main module ended, the owner held only by a reference cycle (gc disabled)",
    "sigterm-default": "SIGTERM sent to itself, with the default handler",
    "sigkill": "SIGKILL sent to itself",
    "os-exit": "os._exit(7)",
}


_RELEASED = [
    _Exit("normal", 0),
    _Exit("sys-exit", 3),
    _Exit("exception", 1),
    _Exit("keyboard-interrupt", -signal.SIGINT),
    _Exit("sigint", -signal.SIGINT),
    _Exit("sigterm-handler", 143),
    _Exit("cycle", 0),
]
_LEFT_BEHIND = [
    _Exit("sigterm-default", -signal.SIGTERM),
    _Exit("sigkill", -signal.SIGKILL),
    _Exit("os-exit", 7),
]


@requires("subprocess")
@pytest.mark.requires("file-backed")
class TestInterpreterExit:
    @clause("FBD-CLOSE-5")
    @pytest.mark.parametrize("end", _RELEASED, ids=[e.case for e in _RELEASED])
    def test_released(self, impl: Implementation, tmp_path: Path, end: _Exit) -> None:
        # The plain end in a fresh interpreter: one that imported the implementation itself and
        # never ran its fork handlers, as a warm child has (docs/performance.md).
        run = run_child(impl, _EXIT_CHILD, tmp_path, end.case, fresh=end.case == "normal")
        assert run.returncode == end.returncode, (
            f"a child that owned a file made by move_from ended by {end.how}: expected exit "
            f"status {end.returncode}, got {run.returncode}; stderr:\n{run.stderr}"
        )
        assert not run.path.exists(), (
            f"a child that owned {run.path.name} (made by move_from) ended by {end.how}: "
            "expected the owned file released at exit; it is still there"
        )
        assert not (tmp_path / "owned.bin").exists()
        _no_error_at_exit(run)

    @clause("FBD-EXIT-1")
    @pytest.mark.parametrize("end", _LEFT_BEHIND, ids=[e.case for e in _LEFT_BEHIND])
    def test_left_behind(self, impl: Implementation, tmp_path: Path, end: _Exit) -> None:
        # MAY: the file may be left behind (section 7), but what is left is never damaged.
        run = run_child(impl, _EXIT_CHILD, tmp_path, end.case)
        assert run.returncode == end.returncode, run.stderr
        try:
            if run.path.exists():
                assert run.path.read_bytes() == b"owned by the child\n" * 64
        finally:
            _discard(run.path)

    @clause("FBD-INIT-3")
    @pytest.mark.relies_on("FBD-CLOSE-5")  # the owner is seen to own its file by exit releasing it
    def test_cleanup_true_released(self, impl: Implementation, tmp_path: Path) -> None:
        run = run_child(impl, _EXIT_CHILD, tmp_path, "cleanup-true")
        assert run.returncode == 0, run.stderr
        assert not run.path.exists()

    @clause("FBD-INIT-2")
    def test_borrowed_survives(self, impl: Implementation, tmp_path: Path) -> None:
        run = run_child(impl, _EXIT_CHILD, tmp_path, "borrowed")
        assert run.returncode == 0, run.stderr
        assert run.path.read_bytes() == b"owned by the child\n" * 64

    @clause("FBD-CLOSE-6")
    def test_already_gone(self, impl: Implementation, tmp_path: Path) -> None:
        run = run_child(impl, _EXIT_CHILD, tmp_path, "already-gone")
        assert run.returncode == 0, run.stderr
        _no_error_at_exit(run)
        assert "Traceback" not in run.stderr, run.stderr
        assert "Warning" not in run.stderr, run.stderr

    @clause("FBD-CLOSE-7")
    @pytest.mark.relies_on("FBD-CLOSE-1", "FBD-CLOSE-5")  # a removal to fail; the exit release
    def test_failed_close_is_retried_at_exit(self, impl: Implementation, tmp_path: Path) -> None:
        run = run_child(impl, _EXIT_CHILD, tmp_path, "close-failed")
        try:
            assert run.returncode == 0, run.stderr
            assert run.value("close") == "raised PermissionError", (
                "close() of an owner whose removal failed (os.remove and os.unlink raising "
                f"PermissionError for it): expected PermissionError, it {run.value('close')}"
            )
            assert not run.path.exists(), (
                f"close() of {run.path.name} failed (removal refused), then the child exited "
                "normally with removal working again: expected the exit backstop to retry and "
                "remove it; it is still there"
            )
        finally:
            _discard(run.path)

    @clause("FBD-CLOSE-7")
    @pytest.mark.relies_on("FBD-CLOSE-5")  # the removal that fails is the exit release's
    def test_failure_at_exit_warns(self, impl: Implementation, tmp_path: Path) -> None:
        run = run_child(impl, _EXIT_CHILD, tmp_path, "removal-fails-at-exit")
        try:
            assert run.returncode == 0, run.stderr
            assert run.path.exists()
            warned = [line for line in run.stderr.splitlines() if "RuntimeWarning" in line]
            assert any(run.path.name in line for line in warned), (
                f"the child exited normally with the removal of its owned {run.path.name} "
                "refused (PermissionError): expected a RuntimeWarning naming it on stderr; "
                f"stderr:\n{run.stderr}"
            )
        finally:
            _discard(run.path)


# --- forks -------------------------------------------------------------------------------------

_FORK_CHILD = child_script(r"""
with open(source, "wb") as f:
    f.write(b"owned by the parent\n" * 64)
blob = impl.FileBackedData.move_from(source)
path = impl.path_of(blob)
print(path, flush=True)
sys.stderr.flush()

pid = os.fork()
if pid:
    _, status = os.waitpid(pid, 0)
    print(f"child={os.waitstatus_to_exitcode(status)}", flush=True)
    print(f"after-child={os.path.exists(path)}", flush=True)
    blob.close()
    print(f"after-close={os.path.exists(path)}", flush=True)
elif case == "sys-exit":
    sys.exit(0)
elif case == "exception":
    raise RuntimeError("uncaught in the forked child")
# case "normal": the forked child runs off the end of the script like its parent
""")

_FORK_ENDS = [("normal", 0), ("sys-exit", 0), ("exception", 1)]


_INHERITED: list[FileBackedData] = []
"""The parent's object, for a forked multiprocessing child to inherit (not pickled: FBD-COPY-2)."""


def _child_drops_the_inherited() -> None:
    """A multiprocessing target: close the inherited parent's object, drop it, collect garbage."""
    blob = _INHERITED.pop()
    blob.close()
    del blob
    gc.collect()


@pytest.mark.requires("file-backed")
@pytest.mark.relies_on("FBD-CLOSE-1")  # the parent still owns the file: its close() deletes it
class TestFork:
    @clause("FBD-FORK-1")
    @requires("subprocess")
    @needs_fork
    @pytest.mark.parametrize(("case", "code"), _FORK_ENDS, ids=[c for c, _ in _FORK_ENDS])
    def test_child_exit_spares_the_parents_file(
        self, impl: Implementation, tmp_path: Path, case: str, code: int
    ) -> None:
        run = run_child(impl, _FORK_CHILD, tmp_path, case)
        try:
            assert run.returncode == 0, run.stderr
            assert run.value("child") == str(code), run.stderr
            ended = {
                "normal": "normally",
                "sys-exit": "by sys.exit(0)",
                "exception": "by an uncaught exception",
            }[case]
            assert run.value("after-child") == "True", (
                f"a child forked from a process owning {run.path.name} (made by move_from) "
                f"exited {ended}: expected the parent's file still there; the child deleted it"
            )
            assert run.value("after-close") == "False", (
                f"after its forked child exited, the parent's close() of {run.path.name}: "
                "expected the file removed; it is still there"
            )
        finally:
            _discard(run.path)

    @clause("FBD-FORK-1")
    @needs_fork
    @pytest.mark.parametrize("release", ["close", "gc"])
    def test_child_close_or_gc_spares_the_parents_file(
        self, impl: Implementation, blobs: Blobs, release: str
    ) -> None:
        blob = impl.FileBackedData.move_from(str(blobs.file(CONTENTS)))
        path = blobs.path(blob)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; it must never return into pytest
            code = 0
            try:
                if release == "close":
                    blob.close()
                else:
                    del blob
                    gc.collect()
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        try:
            assert os.waitstatus_to_exitcode(status) == 0
            assert path.exists(), (
                "a forked child "
                + ("called close() on" if release == "close" else "dropped and collected")
                + f" the object it inherited, owning {path.name} for the parent: expected the "
                "parent's file still there; the child deleted it"
            )
            assert path.read_bytes() == CONTENTS
        finally:
            blob.close()
        assert not path.exists()

    @clause("FBD-FORK-1")
    @pytest.mark.parametrize("method", ["fork"])
    def test_multiprocessing_child_spares_the_parents_file(
        self, impl: Implementation, blobs: Blobs, method: str
    ) -> None:
        # Only a forked child holds the parent's object; a spawn or forkserver child never does.
        if method not in multiprocessing.get_all_start_methods():
            pytest.skip(f"start method {method!r} is not available")
        blob = blobs.moved(CONTENTS)
        path = blobs.path(blob)
        context: Any = multiprocessing.get_context(method)  # typeshed: BaseContext lacks Process
        _INHERITED.append(blob)
        try:
            process = context.Process(target=_child_drops_the_inherited)
            process.start()
        finally:
            _INHERITED.clear()
        process.join(CHILD_TIMEOUT)
        assert process.exitcode == 0, "close() in the forked child raised"
        assert path.exists(), "a multiprocessing child (fork) deleted the parent's file"
        assert path.read_bytes() == CONTENTS
        blob.close()
        assert not path.exists()


# --- an owner held by a thread at exit -----------------------------------------------------------

_HELD_BY_A_THREAD = child_script(r"""
import threading

with open(source, "wb") as f:
    f.write(b"held by a thread\n" * 64)
blob = impl.FileBackedData.move_from(source)
print(impl.path_of(blob), flush=True)
never = threading.Event()
threading.Thread(target=lambda held: never.wait(), args=(blob,), daemon=True).start()
del blob  # only the daemon thread, still running at exit, holds the owner now
if case == "sys-exit":
    sys.exit(0)
""")


@pytest.mark.requires("file-backed")
class TestExitBackstop:
    @clause("FBD-CLOSE-5")
    @requires("subprocess")
    @pytest.mark.parametrize("end", ["normal", "sys-exit"])
    def test_owner_held_by_a_running_thread_is_released(
        self, impl: Implementation, tmp_path: Path, end: str
    ) -> None:
        """An owner still alive at exit, because a daemon thread holds it, is released by the
        exit backstop. Kills ``tests/mutants/del_only_cleanup`` (review defect 1): ``__del__``
        never runs for an object that a thread frozen at shutdown still references."""
        run = run_child(impl, _HELD_BY_A_THREAD, tmp_path, end)
        assert run.returncode == 0, run.stderr
        path = run.path
        try:
            assert not path.exists(), f"{end}: the owner held by a thread outlived the process"
            assert "Exception ignored" not in run.stderr, run.stderr
        finally:
            path.unlink(missing_ok=True)


# --- an exit with no descriptor free -------------------------------------------------------------

_EXIT_OUT_OF_DESCRIPTORS = child_script(r"""
import errno, resource

owners = []
for sub in ("a", "b"):
    os.mkdir(os.path.join(directory, sub))
    for name in ("moved.bin", "owned.bin"):
        path = os.path.join(directory, sub, name)
        with open(path, "wb") as f:
            f.write(b"owned at an exit out of descriptors\n" * 64)
        if name == "moved.bin":
            owners.append(impl.FileBackedData.move_from(path))
        else:
            owners.append(impl.FileBackedData(path, cleanup=True))
for owner in owners:
    print(impl.path_of(owner), flush=True)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 256), hard))  # a short loop to fill
held = []
try:
    while len(held) < 4096:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError as exc:
    print(f"full={errno.errorcode.get(exc.errno, exc.errno)}", flush=True)
if case == "sys-exit":
    sys.exit(0)
elif case == "exception":
    raise RuntimeError("uncaught with every descriptor in use")
""")


@requires("subprocess")
@pytest.mark.requires("file-backed")
class TestExitOutOfDescriptors:
    @clause("FBD-EXIT-2")
    @pytest.mark.relies_on("FBD-CLOSE-5")  # the release at exit, here starved of descriptors
    @pytest.mark.parametrize(("case", "code"), _FORK_ENDS, ids=[c for c, _ in _FORK_ENDS])
    def test_every_owned_file_released(
        self, impl: Implementation, tmp_path: Path, case: str, code: int
    ) -> None:
        """A child owning four files in two directories (two by move_from, two by the owning
        constructor) opens /dev/null until EMFILE, then ends holding every descriptor."""
        run = run_child(impl, _EXIT_OUT_OF_DESCRIPTORS, tmp_path, case)
        paths = [Path(line) for line in run.lines if line.startswith(os.sep)]
        try:
            assert run.returncode == code, run.stderr
            assert len(paths) == 4, run.lines
            assert run.value("full") == "EMFILE", run.stderr
            left = [str(p.relative_to(tmp_path)) for p in paths if p.exists()]
            assert not left, (
                f"a child ended ({case}) with every descriptor in use (RLIMIT_NOFILE reached, "
                f"EMFILE), owning 4 files: expected each released at exit, {len(left)} left: "
                f"{left}; stderr:\n{run.stderr}"
            )
            _no_error_at_exit(run)
        finally:
            for path in paths:
                _discard(path)


# --- owners made while the exit release runs ----------------------------------------------------

_OWNERS_DURING_EXIT = child_script(r"""
import threading
from conformance.harness.exit_window import pause_the_exit_release

def write(name):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(b"made while the process exits\n" * 64)
    return path

first = impl.FileBackedData.move_from(write("first.bin"))
print(impl.path_of(first), flush=True)
begun, made, never = threading.Event(), threading.Event(), threading.Event()

def late():
    if not begun.wait(60):
        return
    try:
        if case == "move":
            blob = impl.FileBackedData.move_from(write("late.bin"))
        else:
            blob = impl.FileBackedData(write("late.bin"), cleanup=True)
    except Exception as exc:
        print(f"late=refused {type(exc).__name__}: {exc}", flush=True)
    else:
        print(f"late=owned {impl.path_of(blob)}", flush=True)
    finally:
        made.set()
    never.wait()  # holds the late owner through the rest of the exit

threading.Thread(target=late, daemon=True).start()
# the exit release's first removal: a daemon thread makes an owner then, the release waits for it
pause_the_exit_release(begun, made, 30)
""")


@requires("subprocess")
@pytest.mark.requires("file-backed")
class TestOwnersDuringExit:
    @clause("FBD-EXIT-3")
    @pytest.mark.relies_on("FBD-CLOSE-5")
    @pytest.mark.parametrize("case", ["move", "own"])
    def test_released_or_refused(self, impl: Implementation, tmp_path: Path, case: str) -> None:
        """A daemon thread makes an owner (by move_from, or the owning constructor) while the
        release at exit runs: at its first removal, which waits until the owner is made."""
        run = run_child(impl, _OWNERS_DURING_EXIT, tmp_path, case)
        how = "move_from" if case == "move" else "FileBackedData(path, cleanup=True)"
        try:
            assert run.returncode == 0, run.stderr
            late = run.value("late")
            assert not run.path.exists(), f"the owner made before exit was left; {run.stderr}"
            if late.startswith("owned "):
                made = Path(late.removeprefix("owned "))
                assert not made.exists(), (
                    f"a daemon thread's {how} made an owner while the release at exit ran (at its "
                    f"first removal): expected it released too, or its making refused; "
                    f"{made.name} was left behind"
                )
            else:
                assert (
                    tmp_path / "late.bin"
                ).read_bytes() == b"made while the process exits\n" * 64, (
                    f"a daemon thread's {how} during the release at exit was refused ({late}): "
                    "expected the file left in place, unowned"
                )
            left = [n for n in os.listdir(tmp_path) if n.startswith(".executorch_")]
            assert not left, f"placeholders left after the exit: {left}"
        finally:
            for name in os.listdir(tmp_path):
                _discard(tmp_path / name)
