"""Child processes for the suite: a script run in a process of its own that loads the
implementation under test by name, for what only a process's exit can show."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..api import Implementation
from .warm import warm_parent

__all__ = ["CHILD_TIMEOUT", "ChildRun", "child_env", "child_script", "dead_pid", "run_child"]

CHILD_TIMEOUT = 180  # seconds; a child importing a heavy implementation (torch) takes a few
_SCRIPT_HEAD = r"""
import os, sys
from conformance.adapters import load_implementation

target, directory, case = sys.argv[1:4]
impl = load_implementation(target)
source = os.path.join(directory, "owned.bin")
"""


def child_script(body: str) -> str:
    """A script for :func:`run_child`: ``body`` after the arguments it passes are read, the
    implementation is loaded by name, and ``source`` names the file the child writes and owns."""
    return _SCRIPT_HEAD + body


def child_env() -> dict[str, str]:
    """The environment for a child interpreter: ours, with our import path on PYTHONPATH."""
    env = dict(os.environ)
    entries = [p for p in sys.path if p and os.path.isdir(p)]
    if env.get("PYTHONPATH"):
        entries.insert(0, env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(entries)
    return env


@dataclass(frozen=True)
class ChildRun:
    """What a child interpreter did: its exit code, its stdout lines and stderr."""

    returncode: int
    lines: list[str]
    stderr: str

    @property
    def path(self) -> Path:
        """The first line a child prints: the path of the file it owns."""
        assert self.lines, f"the child printed nothing; stderr:\n{self.stderr}"
        return Path(self.lines[0])

    def value(self, name: str) -> str:
        """The value of a ``name=value`` line."""
        for line in self.lines:
            key, sep, value = line.partition("=")
            if sep and key == name:
                return value
        raise AssertionError(f"the child printed no {name}=...; stderr:\n{self.stderr}")


def run_child(
    impl: Implementation, script: str, directory: Path, case: str, *, fresh: bool = False
) -> ChildRun:
    """Run ``script`` in a child that loads ``impl`` by name; argv: target, dir, case. The child
    is forked from a warm parent that has imported ``impl`` (:mod:`.warm`), or with ``fresh`` a
    new interpreter, for a test of what a process that imported the implementation itself does."""
    assert impl.target is not None  # the "subprocess" capability
    argv = [impl.target, str(directory), case]
    if fresh or not hasattr(os, "fork"):
        done = subprocess.run(
            [sys.executable, "-c", script, *argv],
            cwd=directory,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT,
            check=False,
        )
    else:
        done = warm_parent(impl.target, child_env()).run(script, argv, directory, CHILD_TIMEOUT)
    return ChildRun(done.returncode, done.stdout.splitlines(), done.stderr)


def dead_pid() -> int:
    """A pid that no process has now: that of a child that has exited and been reaped."""
    out = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(out)
