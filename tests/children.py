"""What a test needs to start a child ``cordspec`` or pytest: this repository's root and an
environment free of the parent run's settings."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from conformance import environment
from conformance.cli import WORKERS_VARIABLE

REPO = Path(__file__).resolve().parents[1]


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child ``cordspec``/pytest: no PYTEST_* settings of the run that
    starts it, no CORDSPEC_IMPL, one worker for a ``cordspec run`` that does not choose (this
    run's own workers take the cores), and this repository importable (for ``tests.impls``)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k != environment.IMPL.name
    }
    env[WORKERS_VARIABLE] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env.update(extra)
    return env


def python(
    *args: str, cwd: Path = REPO, timeout: float = 300, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """This interpreter run with ``args`` in a child (``-m conformance ...``, ``-m pytest ...``),
    in :func:`subprocess_env` unless ``env`` is given, its output captured as text."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=subprocess_env() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def shared_runs(
    factory: pytest.TempPathFactory,
    name: str,
    argvs: Mapping[str, list[str]],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 1800,
) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """Run every child of ``argvs`` at once and wait, once per test session: under pytest-xdist
    the workers share one set of runs (the first to take the lock makes them, the others read
    them). Each child runs in ``cwd`` (default: a directory of its own, which is returned with it)
    with its output in files, so that no pipe fills up."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = factory.getbasetemp().parent / f"cordspec-{name}"
    else:
        base = factory.mktemp(name)
    base.mkdir(exist_ok=True)
    with (base / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (base / "done").exists():
                _start_and_wait(base, argvs, cwd, dict(env or subprocess_env()), timeout)
                (base / "done").touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    runs = {}
    for child in argvs:
        directory = base / child
        runs[child] = (
            directory,
            subprocess.CompletedProcess(
                json.loads((directory / "argv").read_text("utf-8")),
                int((directory / "rc").read_text("utf-8")),
                (directory / "stdout").read_text("utf-8"),
                (directory / "stderr").read_text("utf-8"),
            ),
        )
    return runs


def _start_and_wait(
    base: Path,
    argvs: Mapping[str, list[str]],
    cwd: Path | None,
    env: dict[str, str],
    timeout: float,
) -> None:
    started: list[tuple[Path, subprocess.Popen[bytes]]] = []
    try:
        for child, argv in argvs.items():
            directory = base / child
            directory.mkdir()
            (directory / "argv").write_text(json.dumps(argv), "utf-8")
            with (directory / "stdout").open("w") as out, (directory / "stderr").open("w") as err:
                process = subprocess.Popen(
                    argv, cwd=cwd or directory, env=env, stdout=out, stderr=err
                )
            started.append((directory, process))
        for directory, process in started:
            (directory / "rc").write_text(str(process.wait(timeout=timeout)), "utf-8")
    finally:
        for _, process in started:
            if process.poll() is None:
                process.kill()
                process.wait()
