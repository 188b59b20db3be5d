"""The options of a run, declared once: ``cordspec run`` (argparse) and the pytest plugin add the
same flags with the same help from here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .spec import PROFILES

__all__ = ["RUN_OPTIONS", "RunOption", "add_run_options"]


@dataclass(frozen=True)
class RunOption:
    """One option: its flag and the keyword arguments argparse and pytest's ``addoption`` share."""

    flag: str
    help: str
    settings: dict[str, object] = field(default_factory=dict)
    pytest_dest: str | None = None
    """The destination under pytest, where a bare name could clash with another plugin's."""


RUN_OPTIONS = (
    RunOption(
        "--impl",
        "implementation under test: reference, executorch, package.module or "
        "package.module:object (default: $CORDSPEC_IMPL, else reference)",
    ),
    RunOption(
        "--profile",
        "core: the clauses every implementation meets; strict: core plus the strict clauses "
        "(default: strict)",
        {"choices": PROFILES, "default": "strict"},
    ),
    RunOption(
        "--report",
        "write the clause report to PATH: Markdown for .md, JSON for .json (repeatable)",
        {"action": "append", "default": [], "metavar": "PATH"},
        pytest_dest="cordspec_report",
    ),
    RunOption(
        "--deviations",
        "file of known deviations (default: the built-in adapter's own list, if any)",
        {"metavar": "FILE"},
    ),
)


def add_run_options(
    add: Callable[..., object], *, pytest: bool, extra: dict[str, dict[str, object]] | None = None
) -> None:
    """Add every run option with ``add`` (``parser.add_argument`` or ``group.addoption``);
    ``extra`` adds keyword arguments by flag (e.g. argparse's ``type``)."""
    for option in RUN_OPTIONS:
        settings = {**option.settings, **(extra or {}).get(option.flag, {})}
        if pytest and option.pytest_dest:
            settings["dest"] = option.pytest_dest
        add(option.flag, help=option.help, **settings)
