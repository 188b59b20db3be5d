"""The suite's child processes (conformance.harness.child, .warm): a child forked from the warm
parent starts as a fresh interpreter would (signal handlers, descriptors, registries, argv, exit
status), and ``fresh=True`` still gives a new interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.adapters import load_implementation
from conformance.harness.child import child_script, run_child
from conformance.harness.warm import warm_parent

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")

IMPL = load_implementation("reference")

_STATE = child_script(r"""
import atexit, gc, signal, threading
import reference.ownership as ownership

handlers = {}
for number in sorted(signal.valid_signals()):
    try:
        handlers[int(number)] = repr(signal.getsignal(number))
    except (OSError, ValueError):
        pass
fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
print("handlers=" + repr(handlers))
print("fds=" + repr(fds))
print("owners=" + repr(len(ownership._owners)))
print("atexit=" + repr(atexit._ncallbacks()))
print("threads=" + repr(threading.active_count()))
print("argv=" + repr(sys.argv))
print("cwd=" + os.getcwd())
print("name=" + __name__)
print("stdin=" + repr(sys.stdin.read()))
print("ppid=" + repr(os.getppid()))
""")


def _state(tmp_path: Path, *, fresh: bool) -> dict[str, str]:
    run = run_child(IMPL, _STATE, tmp_path, "state", fresh=fresh)
    assert run.returncode == 0, run.stderr
    return {line.partition("=")[0]: line.partition("=")[2] for line in run.lines}


def test_a_warm_child_starts_as_a_fresh_interpreter(tmp_path: Path) -> None:
    fresh, warm = _state(tmp_path, fresh=True), _state(tmp_path, fresh=False)
    assert fresh.pop("ppid") == str(os.getpid())  # fresh: a new interpreter of this process
    assert warm.pop("ppid") != str(os.getpid())  # warm: forked by the warm parent
    assert warm == fresh
    assert warm["owners"] == "0"
    assert warm["stdin"] == "''"
    assert warm["argv"] == repr(["-c", "reference", str(tmp_path), "state"])


def test_a_warm_child_does_not_inherit_an_earlier_childs_state(tmp_path: Path) -> None:
    leave = child_script(r"""
import signal
signal.signal(signal.SIGTERM, lambda *a: None)
with open(source, "wb") as f:
    f.write(b"x")
kept = impl.FileBackedData.move_from(source)
extra = os.open(os.devnull, os.O_RDONLY)  # left open at exit
os._exit(0)  # no release: the owner's entry stays in this child's registry
""")
    before = _state(tmp_path, fresh=False)
    assert run_child(IMPL, leave, tmp_path, "leave").returncode == 0
    after = _state(tmp_path, fresh=False)
    assert after == before  # handlers, descriptors, registry entries: none carried over
    for leftover in tmp_path.iterdir():
        leftover.unlink()


def test_the_test_process_handlers_and_descriptors_do_not_reach_a_warm_child(
    tmp_path: Path,
) -> None:
    import signal

    before = _state(tmp_path, fresh=False)
    previous = signal.signal(signal.SIGUSR1, lambda *a: None)
    extra = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(extra, True)
    try:
        after = _state(tmp_path, fresh=False)
    finally:
        os.close(extra)
        signal.signal(signal.SIGUSR1, previous)
    after.pop("ppid"), before.pop("ppid")
    assert after == before


@pytest.mark.parametrize(
    ("body", "code", "stderr"),
    [
        ("pass", 0, ""),
        ("sys.exit(3)", 3, ""),
        ("raise RuntimeError('uncaught')", 1, "RuntimeError: uncaught"),
        ("raise KeyboardInterrupt", -2, "KeyboardInterrupt"),
        ("import signal; os.kill(os.getpid(), signal.SIGKILL)", -9, ""),
        ("os._exit(7)", 7, ""),
        ("import atexit; atexit.register(print, 'at exit')", 0, ""),
    ],
)
def test_a_warm_child_ends_as_a_fresh_interpreter_would(
    tmp_path: Path, body: str, code: int, stderr: str
) -> None:
    script = child_script(body)
    runs = [run_child(IMPL, script, tmp_path, "end", fresh=fresh) for fresh in (True, False)]
    for run in runs:
        assert run.returncode == code, run.stderr
        assert stderr in run.stderr
    assert runs[0].lines == runs[1].lines


def test_a_warm_child_that_overruns_is_killed_and_the_parent_goes_on(tmp_path: Path) -> None:
    parent = warm_parent("reference", dict(os.environ))
    script = "import time; time.sleep(60)"
    with pytest.raises(subprocess.TimeoutExpired):
        parent.run(script, [], tmp_path, timeout=0.5)
    done = parent.run("print('next')", [], tmp_path, timeout=60)
    assert (done.returncode, done.stdout) == (0, "next\n")


def test_a_killed_warm_parent_is_replaced(tmp_path: Path) -> None:
    parent = warm_parent("reference", dict(os.environ))
    parent._process.kill()
    parent._process.wait()
    assert not parent.alive()
    with pytest.raises(RuntimeError, match="ended"):
        parent.run("pass", [], tmp_path, timeout=60)
    replacement = warm_parent("reference", dict(os.environ))
    assert replacement is not parent
    assert replacement.run("print(1)", [], tmp_path, timeout=60).stdout == "1\n"
    assert sys.executable in replacement._process.args


def test_a_parent_that_cannot_load_its_implementation_says_why(tmp_path: Path) -> None:
    parent = warm_parent("tests.no_such_module:IMPLEMENTATION", dict(os.environ))
    try:
        with pytest.raises(RuntimeError, match="no_such_module"):
            parent.run("pass", [], tmp_path, timeout=60)
    finally:
        parent.close()
