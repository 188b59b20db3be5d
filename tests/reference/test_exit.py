"""Interpreter exit: how a Python process ends decides whether its owned file is removed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import reference

ROOT = Path(reference.__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    """
    import os, sys
    from reference import FileBackedData

    blob = FileBackedData.move_from(sys.argv[1])  # a module global: alive until shutdown
    print(blob.path, flush=True)
    how = sys.argv[2]
    if how == "exit3":
        sys.exit(3)
    elif how == "raise":
        raise RuntimeError("uncaught")
    elif how == "interrupt":
        raise KeyboardInterrupt
    elif how == "os_exit":
        os._exit(0)
    elif how == "fork":
        pid = os.fork()
        if pid == 0:
            sys.exit(0)  # the child ends normally: its exit handlers run
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), os.path.exists(blob.path), flush=True)
    elif how == "fork_gc":
        pid = os.fork()
        if pid == 0:
            del blob  # the child drops the object: its finalizer runs in the child
            import gc; gc.collect()
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), os.path.exists(blob.path), flush=True)
    """
)


def run(source: Path, how: str) -> tuple[subprocess.CompletedProcess[str], str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(source), how],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = done.stdout.splitlines()
    assert lines, done.stderr
    return done, lines[0]


@pytest.mark.parametrize(
    ("how", "returncodes"),
    [
        ("normal", {0}),
        ("exit3", {3}),
        ("raise", {1}),
        ("interrupt", {-signal.SIGINT, 130}),
    ],
)
def test_owned_file_removed_at_exit(
    make_file, tmp_path: Path, how: str, returncodes: set[int]
) -> None:
    source = make_file("weights.blob", b"weights")
    done, placeholder = run(source, how)
    assert done.returncode in returncodes, done.stderr
    assert os.path.dirname(placeholder) == str(tmp_path)
    assert not os.path.exists(placeholder)
    assert os.listdir(tmp_path) == []
    assert "could not remove" not in done.stderr


def test_os_exit_leaves_the_file_behind(make_file, tmp_path: Path) -> None:
    """Documented: no exit handler runs after os._exit, so the placeholder stays."""
    source = make_file("weights.blob", b"weights")
    done, placeholder = run(source, "os_exit")
    assert done.returncode == 0
    assert Path(placeholder).read_bytes() == b"weights"
    assert os.path.basename(placeholder).startswith(".executorch_")
    os.unlink(placeholder)


@pytest.mark.parametrize("how", ["fork", "fork_gc"])
def test_forked_child_exiting_normally_keeps_parent_file(
    make_file, tmp_path: Path, how: str
) -> None:
    source = make_file("weights.blob", b"weights")
    done, placeholder = run(source, how)
    assert done.returncode == 0, done.stderr
    # the parent saw its file still there after the child exited, and removed it at its own exit
    assert done.stdout.splitlines()[1] == "0 True"
    assert not os.path.exists(placeholder)
    assert os.listdir(tmp_path) == []
