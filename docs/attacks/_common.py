"""What the attack scripts share: the implementation under attack is ``reference`` as the import
path finds it (``PYTHONPATH=<checkout>``), else this checkout's; children run with that path. What
the scripts take from the conformance harness (its forks, bounded waits and exit window) is this
checkout's, whichever checkout is attacked."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

CHECKOUT = Path(__file__).resolve().parents[2]
if str(CHECKOUT) not in sys.path:
    sys.path.append(str(CHECKOUT))  # after PYTHONPATH: a checkout named there is the one attacked


def harness(name: str) -> ModuleType:
    """``conformance.harness.<name>`` of this checkout (one that imports the standard library
    only), loaded from its file: the checkout the import path names may be an older one."""
    path = CHECKOUT / "conformance" / "harness" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_attack_harness_{name}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHILD_HEAD = r"""
import os, sys
directory = sys.argv[1]

def write(name):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(b"w" * 4096)
    return path
"""
"""What a child script of :func:`child` starts with: ``directory``, its first argument, and
``write(name)``, which writes a file of that name there and returns its path."""


def child(script: str, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``script`` after :data:`CHILD_HEAD` in a fresh interpreter that imports ``reference`` as
    this one does (from a neutral directory: ``-c`` puts the current one first on the path)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in sys.path if p))
    return subprocess.run(
        [sys.executable, "-c", CHILD_HEAD + script, *argv],
        cwd=tempfile.gettempdir(),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def verdict(defect: str | None) -> None:
    """Exit 0 when ``defect`` is None, else print it and exit 1."""
    if defect is None:
        print("defect absent")
        sys.exit(0)
    print(f"DEFECT PRESENT: {defect}")
    sys.exit(1)


def report(name: str, defects: list[str], held: str) -> int:
    """Print each of ``defects`` (to stderr) or, with none, ``name: held``; the exit status, 1
    with any defect, else 0."""
    for defect in defects:
        print(f"DEFECT: {defect}", file=sys.stderr)
    if not defects:
        print(f"{name}: {held}")
    return 1 if defects else 0
