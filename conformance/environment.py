"""Every environment variable cordspec reads, in one place: its name, what it sets, its type and
its default. The code reads a variable only through :class:`Variable`; README's "Environment
variables" lists them, and ``tests/test_environment.py`` checks that no other ``CORDSPEC_`` name is
read anywhere in the tree."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = [
    "EXECUTORCH_PYTHON",
    "FAULT_SEED",
    "FAULT_SEQUENCES",
    "HYPOTHESIS_HOME",
    "IMPACT_CHILDREN",
    "IMPACT_RECORD",
    "IMPACT_SELECT",
    "IMPL",
    "INTERRUPT_TRIALS",
    "LONG_CAMPAIGN",
    "MANY_BLOBS",
    "SUITE_MAP",
    "VARIABLES",
    "WORKERS",
    "Variable",
]

T = TypeVar("T", covariant=True)


@dataclass(frozen=True)
class Variable(Generic[T]):
    """One environment variable: unset or blank gives ``default``; a value ``parse`` refuses is an
    error that names the variable and the value."""

    name: str
    doc: str
    parse: Callable[[str], T]
    default: T
    expected: str = "a value"
    """What a valid value is, for the error message."""
    internal: bool = False
    """Set by cordspec for a process it starts, not by a user."""

    def get(self, environ: Mapping[str, str] | None = None) -> T:
        """The value in ``environ`` (default: this process's environment)."""
        raw = (os.environ if environ is None else environ).get(self.name, "").strip()
        if not raw:
            return self.default
        try:
            return self.parse(raw)
        except ValueError:
            raise ValueError(f"{self.name}={raw!r}: expected {self.expected}") from None


def _positive(raw: str) -> int:
    if not raw.isdecimal() or int(raw) < 1:
        raise ValueError(raw)
    return int(raw)


def _integer(raw: str) -> int:
    return int(raw)


def _flag(raw: str) -> bool:
    return raw != "0"


def _text(raw: str) -> str:
    return raw


IMPL = Variable[str | None](
    "CORDSPEC_IMPL",
    "The implementation under test when --impl is not given (cordspec run, cordspec host, the "
    "pytest plugin's --cordspec-impl).",
    _text,
    None,
)
WORKERS = Variable[int | None](
    "CORDSPEC_WORKERS",
    "How many pytest-xdist workers cordspec run starts when -n is not given (default: one per "
    "core it may use, at most 4).",
    _positive,
    None,
    "a number of workers, 1 or more",
)
HYPOTHESIS_HOME = Variable[str | None](
    "CORDSPEC_HYPOTHESIS_HOME",
    "Where Hypothesis keeps its files in a cordspec run; cordspec run sets it (default: "
    "$XDG_CACHE_HOME/cordspec/hypothesis) for its workers.",
    _text,
    None,
    internal=True,
)
SUITE_MAP = Variable[str | None](
    "CORDSPEC_SUITE_MAP",
    "The file into which a collection of the suite (cordspec clauses --tests) writes its tests.",
    _text,
    None,
    internal=True,
)
LONG_CAMPAIGN = Variable[bool](
    "CORDSPEC_LONG_CAMPAIGN",
    "Set (to anything but 0) for the long interrupt campaigns of the suite (10,000 moves, 3,000 "
    "constructions, ...; tox -e faults-long).",
    _flag,
    False,
)
EXECUTORCH_PYTHON = Variable[str | None](
    "CORDSPEC_EXECUTORCH_PYTHON",
    "An interpreter that can import ExecuTorch 1.5.1, for the bench (python -m bench "
    "--executorch-python; default: the bench's own).",
    _text,
    None,
)
FAULT_SEED = Variable[int | None](
    "CORDSPEC_FAULT_SEED",
    "tests/test_random_faults.py runs only the fault sequence of this seed (a failure names it).",
    _integer,
    None,
    "an integer seed",
)
FAULT_SEQUENCES = Variable[int | None](
    "CORDSPEC_FAULT_SEQUENCES",
    "How many random fault sequences tests/test_random_faults.py runs (default: its own count).",
    _positive,
    None,
    "a number of sequences, 1 or more",
)
INTERRUPT_TRIALS = Variable[int](
    "CORDSPEC_INTERRUPT_TRIALS",
    "Interrupts at random lines of adds and merges that tests/reference/test_store_costs.py "
    "makes, each.",
    _positive,
    300,
    "a number of trials, 1 or more",
)
MANY_BLOBS = Variable[int](
    "CORDSPEC_MANY_BLOBS",
    "How many owned blobs tests/test_many_blobs.py holds at once (100000: the full scale).",
    _positive,
    10000,
    "a number of blobs, 1 or more",
)
IMPACT_RECORD = Variable[str | None](
    "CORDSPEC_IMPACT_RECORD",
    "The file into which a suite run records what each test reaches (tests/mutants/_impact.py).",
    _text,
    None,
    internal=True,
)
IMPACT_SELECT = Variable[str | None](
    "CORDSPEC_IMPACT_SELECT",
    "The file of the suite tests a mutant's run keeps (tests/mutants/_impact.py).",
    _text,
    None,
    internal=True,
)
IMPACT_CHILDREN = Variable[str | None](
    "CORDSPEC_IMPACT_CHILDREN",
    "'<pid> <file>': where a recording run's child interpreters append what they reach.",
    _text,
    None,
    internal=True,
)

VARIABLES: tuple[Variable[object], ...] = (
    IMPL,
    WORKERS,
    HYPOTHESIS_HOME,
    SUITE_MAP,
    LONG_CAMPAIGN,
    EXECUTORCH_PYTHON,
    FAULT_SEED,
    FAULT_SEQUENCES,
    INTERRUPT_TRIALS,
    MANY_BLOBS,
    IMPACT_RECORD,
    IMPACT_SELECT,
    IMPACT_CHILDREN,
)
"""Every variable, in the order README lists them."""
