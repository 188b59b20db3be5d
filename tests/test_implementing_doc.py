"""docs/implementing.md's adapter is complete: copied as it stands, ``cordspec run`` loads it, runs
the exit tests in child processes through its ``target``, and reports its absent hooks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.children import REPO, subprocess_env

pytestmark = pytest.mark.meta
DOC = REPO / "docs" / "implementing.md"


def adapter_source() -> str:
    """The first Python block after the heading "A complete adapter to copy"."""
    text = DOC.read_text("utf-8")
    section = text.split("## A complete adapter to copy", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no Python block in the adapter section"
    return match.group(1)


def test_the_adapter_runs_as_copied(tmp_path: Path) -> None:
    (tmp_path / "myport_adapter.py").write_text(adapter_source(), "utf-8")
    selection = "TestInterpreterExit or TestCordConstruction or test_hooks"
    run = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--impl", "myport_adapter:implementation",
         "--report", "r.json", "--", "-k", selection],
        cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=900,
        check=False,
    )  # fmt: skip
    assert run.returncode == 4, run.stdout[-3000:] + run.stderr  # conforms, on a partial run
    data = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert data["implementation"] == {
        "name": "myport",
        "version": "0.1.0",
        "impl": "myport_adapter:implementation",
    }
    statuses = {c["id"]: (c["status"], c["reason"]) for c in data["clauses"]}
    assert statuses["FBD-CLOSE-5"] == ("passed", "")  # child processes loaded it by its target
    assert statuses["CORD-INIT-1"] == ("passed", "")
    assert statuses["HOOK-COPY-1"] == (
        "not applicable",
        "needs copy-hook: myport has no backend hooks yet",
    )
