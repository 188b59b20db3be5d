"""Child processes that take a file over with the reference's ``move_from``: a live owner of a
placeholder, or one killed with SIGKILL that leaves its placeholder orphaned (the sweep's tests)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.children import REPO, subprocess_env

_TAKE = """
import os, signal, sys
from reference import FileBackedData
blob = FileBackedData.move_from(sys.argv[1])
print(blob.path, flush=True)
if sys.argv[2] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
sys.stdin.read()  # alive until the parent closes our stdin
blob.close()
"""


class Owner:
    """A child that took ``source``: alive until :meth:`end`, or already killed if ``kill``."""

    def __init__(self, source: Path, kill: bool) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _TAKE, str(source), "kill" if kill else "stay"],
            cwd=REPO,
            env=subprocess_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.placeholder = Path(self.proc.stdout.readline().strip())
        if kill:
            assert self.proc.wait(timeout=60) == -signal.SIGKILL

    @property
    def pid(self) -> int:
        return self.proc.pid

    def end(self) -> None:
        """Kill the child if it still lives, and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=60)
