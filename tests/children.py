"""What a test needs to start a child ``cordspec`` or pytest: this repository's root and an
environment free of the parent run's settings."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child ``cordspec``/pytest: no PYTEST_* settings of the run that
    starts it, no CORDSPEC_IMPL, and this repository importable (for ``tests.impls``)."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "CORDSPEC_IMPL"
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env.update(extra)
    return env
