"""The options of a run, declared once: ``cordspec run`` (argparse) adds them as ``--impl``,
``--profile``, ...; the pytest plugin, which loads in every pytest run of an environment where
cordspec is installed, adds them prefixed (``--cordspec-impl``, ...), so that they cannot clash
with another plugin's options (pytest-profiling's ``--profile``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..profiles import PROFILES

__all__ = [
    "DEFAULT_TIMEOUT",
    "INI",
    "PYTEST_PREFIX",
    "RUN_OPTIONS",
    "SHRINK_TIMEOUT",
    "SUITE",
    "RunOption",
    "add_run_options",
    "is_cordspec_run",
    "pytest_flag",
    "time_limit",
]

DEFAULT_TIMEOUT = 180
"""Seconds a suite test may run (pytest-timeout) before it fails as hung: far longer than any
suite test takes against the reference or ExecuTorch."""
SHRINK_TIMEOUT = 600
"""The default limit of a ``--shrink`` run: Hypothesis shrinks a failing example for up to 300 s
of its own (the store machine takes minutes on a loaded machine), after it found it; a test cut
short while shrinking fails as hung, not as the check it failed."""
PYTEST_PREFIX = "--cordspec-"
"""How every option of cordspec's pytest plugin starts."""
INI = Path(__file__).parents[1] / "cordspec.ini"
"""``cordspec run``'s pytest configuration (passed with ``-c``)."""
SUITE = Path(__file__).parents[1] / "suite"
"""The installed suite's directory, which ``cordspec run`` gives pytest to collect."""
_OURS = pytest.StashKey[bool]()


@dataclass(frozen=True)
class RunOption:
    """One option: its flag and the keyword arguments argparse and pytest's ``addoption`` share."""

    flag: str
    help: str
    settings: dict[str, object] = field(default_factory=dict)

    @property
    def pytest_flag(self) -> str:
        """The flag under pytest: ``--cordspec-impl`` for ``--impl``."""
        return pytest_flag(self.flag)

    @property
    def dest(self) -> str:
        """The destination under pytest (``config.getoption``): ``cordspec_impl``."""
        return self.pytest_flag[2:].replace("-", "_")


def pytest_flag(flag: str) -> str:
    """The pytest plugin's spelling of ``cordspec run``'s ``flag``: ``--impl`` gives
    ``--cordspec-impl``."""
    return PYTEST_PREFIX + flag.removeprefix("--")


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
    ),
    RunOption(
        "--timeout",
        "fail a suite test still running after SECONDS as hung, and go on to the verdict "
        f"(default: {DEFAULT_TIMEOUT}, {SHRINK_TIMEOUT} with --shrink; 0: no limit)",
        {"type": float, "default": None, "metavar": "SECONDS"},
    ),
    RunOption(
        "--clause",
        "run only the tests of clause ID (repeatable): a partial run, judged on those clauses",
        {"action": "append", "default": [], "metavar": "ID"},
    ),
    RunOption(
        "--deviations",
        "file of known deviations (default: the built-in adapter's own list, if any)",
        {"metavar": "FILE"},
    ),
    RunOption(
        "--shrink",
        "shrink failing examples to minimal ones (off by default: a verdict needs one failing "
        "example, and shrinking against a broken implementation takes minutes)",
        {"action": "store_true", "default": False},
    ),
)


def time_limit(timeout: float | None, shrink: bool) -> float:
    """The time limit of each suite test: ``timeout`` when one was given, else the default of a
    run with (or without) ``--shrink``."""
    if timeout is not None:
        return timeout
    return SHRINK_TIMEOUT if shrink else DEFAULT_TIMEOUT


def add_run_options(
    add: Callable[..., object], *, pytest: bool, extra: dict[str, dict[str, object]] | None = None
) -> None:
    """Add every run option with ``add`` (``parser.add_argument``, or with ``pytest`` true
    ``group.addoption``, prefixed); ``extra`` adds keyword arguments by flag (e.g. argparse's
    ``type``)."""
    for option in RUN_OPTIONS:
        settings = {**option.settings, **(extra or {}).get(option.flag, {})}
        if pytest:
            settings["dest"] = option.dest
            add(option.pytest_flag, help=option.help, **settings)
        else:
            add(option.flag, help=option.help, **settings)


def is_cordspec_run(config: pytest.Config) -> bool:
    """Whether a pytest run is the suite's: started with :data:`INI` (``cordspec run``), or given
    one of the plugin's ``--cordspec-*`` options. Any other run (a project that merely has cordspec
    installed) sees nothing of the suite unless it imports it."""
    if _OURS not in config.stash:
        inipath = config.inipath
        ours = inipath is not None and Path(inipath).resolve() == INI.resolve()
        args = [str(a) for a in config.invocation_params.args]
        ours = ours or any(a.startswith(PYTEST_PREFIX) for a in args)
        for option in RUN_OPTIONS:
            value = config.getoption(option.dest, None)
            ours = ours or value not in (None, False, [], option.settings.get("default"))
        config.stash[_OURS] = ours
    return config.stash[_OURS]
