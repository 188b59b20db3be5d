"""A warm parent for the suite's child interpreters: one interpreter per test process and
implementation that has imported the implementation, then forks a child for each script.

A fresh interpreter of ExecuTorch imports torch first, seconds per child; a child forked from this
parent starts in milliseconds. The parent has done nothing but import the implementation, so its
child holds what a fresh interpreter's would after ``load_implementation``: no objects, no files
and no signal handlers of the suite's, with the parent's protocol pipes replaced by its own
standard streams. ``docs/performance.md`` says which tests still need a fresh interpreter.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

__all__ = ["WarmParent", "warm_parent"]

_SERVER = r"""
import gc, json, os, sys
from conformance.adapters import load_implementation

load_implementation(sys.argv[1])
# What the import made is kept for good: no collection in a child traverses it, so a child's
# collections (the last one at its exit) do not copy the parent's pages (torch's: seconds).
gc.freeze()


def _serve():
    # Requests arrive on fd 0, one JSON line each; replies go to fd 1: the child's pid, then its
    # exit code. Returns only in a forked child, with the script it is to run.
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                sys.exit(0)
            pending += chunk
        line, _, pending = pending.partition(b"\n")
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            for fd, name in ((1, "stdout"), (2, "stderr")):
                out = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(out, fd)
                os.close(out)
            os.chdir(request["cwd"])
            sys.argv = ["-c", *request["argv"]]
            return request["script"]
        os.write(1, f"{pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        os.write(1, f"{os.waitstatus_to_exitcode(status)}\n".encode())


_script = _serve()
del _serve
exec(compile(_script, "<string>", "exec"), vars(sys.modules["__main__"]))
"""
"""The parent's program. It forks only from its main thread, between requests, with nothing but
the implementation imported; the child then runs its script as ``python -c`` would (in
``__main__``, argv[0] ``-c``) and ends as that interpreter would: an uncaught exception, a signal
or falling off the end take the ordinary ways out, atexit handlers and finalizers included."""


class WarmParent:
    """The warm parent of one implementation (``target``), started with environment ``env``."""

    def __init__(self, target: str, env: dict[str, str]) -> None:
        self.target = target
        self._lock = threading.Lock()
        # what the parent itself prints (its import's noise), closed by close()
        self._log = tempfile.TemporaryFile()  # noqa: SIM115
        self._process = subprocess.Popen(
            [sys.executable, "-c", _SERVER, target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
        )
        self._replies = b""

    def run(
        self, script: str, argv: list[str], cwd: Path, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        """Run ``script`` in a forked child with ``argv`` after ``-c``, in ``cwd``; its output is
        captured; raises :class:`subprocess.TimeoutExpired` (having killed it) after ``timeout``."""
        with self._lock, tempfile.TemporaryDirectory(prefix="cordspec-warm-") as scratch:
            out, err = Path(scratch, "stdout"), Path(scratch, "stderr")
            request = {"script": script, "argv": argv, "cwd": str(cwd)}
            request |= {"stdout": str(out), "stderr": str(err)}
            self._send(json.dumps(request).encode() + b"\n")
            pid = int(self._reply(timeout))
            try:
                code = int(self._reply(timeout))
            except subprocess.TimeoutExpired:
                os.kill(pid, signal.SIGKILL)
                self._reply(timeout)
                raise
            return subprocess.CompletedProcess(
                [sys.executable, "-c", script, *argv],
                code,
                out.read_text("utf-8", errors="replace"),
                err.read_text("utf-8", errors="replace"),
            )

    def _send(self, data: bytes) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(data)
            stdin.flush()
        except BrokenPipeError:
            raise self._ended() from None

    def _reply(self, timeout: float) -> str:
        """The parent's next reply line, or its death reported as an error."""
        stdout = self._process.stdout
        assert stdout is not None
        while b"\n" not in self._replies:
            ready, _, _ = select.select([stdout], [], [], timeout)
            if not ready:
                raise subprocess.TimeoutExpired(self._process.args, timeout)
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                raise self._ended()
            self._replies += chunk
        line, _, self._replies = self._replies.partition(b"\n")
        return line.decode()

    def _ended(self) -> RuntimeError:
        code = self._process.wait()
        self._log.seek(0)
        said = self._log.read().decode("utf-8", errors="replace")
        return RuntimeError(f"the warm parent of {self.target} ended (exit {code}):\n{said}")

    def alive(self) -> bool:
        """Whether the parent still runs (a test may have killed it)."""
        return self._process.poll() is None

    def close(self) -> None:
        """End the parent: it exits when its request pipe closes."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._log.close()


_parents: dict[tuple[str, int], WarmParent] = {}
_parents_lock = threading.Lock()


def warm_parent(target: str, env: dict[str, str]) -> WarmParent:
    """This process's warm parent for ``target``, started on first use and ended at exit (a
    forked test process starts its own: the pipes of its parent's are not its)."""
    key = (target, os.getpid())
    with _parents_lock:
        if key not in _parents or not _parents[key].alive():
            _parents[key] = WarmParent(target, env)
        return _parents[key]


@atexit.register
def _close_all() -> None:
    for (_, pid), parent in list(_parents.items()):
        if pid == os.getpid():
            parent.close()
