"""The attack scripts of ``docs/attacks/`` (one per defect class the strict profile promises away,
and those of the recorded campaigns in ``docs/attacks/campaign/``), run against this checkout's
reference as a user runs them: each must find nothing lost, steered, leaked or hung (exit 0), or
say why it cannot try here (exit 2, "not testable here")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.children import REPO, subprocess_env

SCRIPTS = sorted(p for p in (REPO / "docs" / "attacks").rglob("*.py") if not p.name.startswith("_"))
BOUND = 180
"""Seconds a script may take (the slowest take about 30 s on a quiet machine)."""
OPEN = {
    "emfile_interrupted_move_stranded.py": "FBD-MOVE-11: the put-back opens the source's directory "
    "twice, and out of descriptors leaves the data at the placeholder",
    "exit_daemon_mid_move.py": "a move whose thread is frozen at exit between the rename and the "
    "registration leaves the data at a placeholder a sweep deletes",
    "fork_during_deferral_deaf_child.py": "a child forked during a deferral inherits the deferral "
    "as its signal handlers",
    "exit_registry_lock_held_hangs.py": "the exit release unregisters under the registry lock "
    "without a bound",
    "read_interrupted_leaks_descriptor.py": "an interrupt while a read opens the blob leaves a "
    "raw descriptor open",
}
"""Defects the campaign found that the reference still has (docs/threat-model.md): a fix made
the line-by-line interrupt tests hang, so it did not land."""


def test_there_is_a_script_per_class_and_per_campaign_defect() -> None:
    assert len([p for p in SCRIPTS if p.parent.name == "attacks"]) >= 10
    assert [p for p in SCRIPTS if p.parent.name == "campaign"]


@pytest.mark.meta  # each script starts interpreters, forks and children of another uid
@pytest.mark.parametrize(
    "script",
    [
        pytest.param(
            p,
            id=str(p.relative_to(REPO)),
            marks=[pytest.mark.xfail(strict=True, reason=f"open defect: {OPEN[p.name]}")]
            if p.name in OPEN
            else [],
        )
        for p in SCRIPTS
    ],
)
def test_the_reference_holds(script: Path, tmp_path: Path) -> None:
    try:
        run = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env=subprocess_env(PYTHONPATH=str(REPO)),
            capture_output=True,
            text=True,
            timeout=BOUND,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{script.name} did not finish in {BOUND} s: the attack hung the reference")
    said = run.stdout + run.stderr
    if run.returncode == 2 and "not testable here" in said:
        pytest.skip(said.strip().splitlines()[-1])
    assert run.returncode == 0, f"{script.name} exit {run.returncode}:\n{said[-3000:]}"
