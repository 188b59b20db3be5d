"""What ``cordspec host`` needs installed, and the refusal that says how to install it."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

__all__ = ["INSTALL", "REQUIRED", "MissingPrerequisites", "check", "missing"]

REQUIRED = ("torch", "executorch", "torchao")
"""The distributions the real pipeline imports (XNNPACK's passes import torchao)."""
INSTALL = (
    "python -m pip install torch==2.13.0 && "
    "python -m pip install --no-deps executorch==1.5.1 torchao && "
    "python -m pip install flatbuffers numpy packaging pyyaml ruamel.yaml sympy tabulate "
    "typing-extensions"
)
"""How to install them (as ``tox -e host`` does): pip, the CPU build of torch, and ``--no-deps``
so that neither executorch nor torchao replaces that torch."""


class MissingPrerequisites(Exception):
    """torch, executorch or torchao cannot be imported here."""


def _findable(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def missing(find: Callable[[str], bool] | None = None) -> list[str]:
    """The required top-level packages that cannot be found."""
    found = find or _findable
    return [name for name in REQUIRED if not found(name)]


def check(find: Callable[[str], bool] | None = None) -> None:
    """Raise :class:`MissingPrerequisites`, naming what is missing and the install line."""
    absent = missing(find)
    if absent:
        raise MissingPrerequisites(
            f"cordspec host needs {', '.join(REQUIRED)}; {', '.join(absent)} "
            f"{'is' if len(absent) == 1 else 'are'} not installed in this Python. "
            f"Install them with: {INSTALL} (or run tox -e host)"
        )
